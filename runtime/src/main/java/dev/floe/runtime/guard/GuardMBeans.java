package dev.floe.runtime.guard;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard's MBeans: {@code dev.floe:type=Agent<suffix>} and one {@code
 * dev.floe:type=Table,name=<table><suffix>} per guarded table; the suffix tells apart the guards of
 * several class loaders. Nothing is registered when JMX is off.
 */
final class GuardMBeans {
    private static final Logger LOG = LoggerFactory.getLogger(GuardMBeans.class);

    private final boolean enabled;
    private final String suffix;
    private final List<ObjectName> registered = new CopyOnWriteArrayList<>();

    GuardMBeans(boolean enabled, String suffix) {
        this.enabled = enabled;
        this.suffix = suffix;
    }

    void agent(GuardMetricsMBean bean) {
        register("dev.floe:type=Agent" + suffix, bean, GuardMetricsMBean.class);
    }

    /** @param table the table's name: {@code namespace.table}, with its catalog's name first for a shared catalog's */
    void table(String table, TableMetricsMBean bean) {
        register("dev.floe:type=Table,name=" + quoteIfNeeded(table) + suffix, bean, TableMetricsMBean.class);
    }

    void unregisterAll() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (Exception e) {
                // gone already
            }
        }
        registered.clear();
    }

    private <T> void register(String name, T bean, Class<T> view) {
        if (!enabled) {
            return;
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName objectName = new ObjectName(name);
            if (!server.isRegistered(objectName)) {
                server.registerMBean(new StandardMBean(bean, view), objectName);
                registered.add(objectName);
            }
        } catch (Exception | LinkageError e) {
            LOG.warn("floe: could not register MBean {}: {}", name, e.toString());
        }
    }

    private static String quoteIfNeeded(String value) {
        return value.matches("[A-Za-z0-9_.\\-]+") ? value : ObjectName.quote(value);
    }
}
