package dev.floe.catalog;

import java.io.IOException;
import java.nio.file.Paths;

/**
 * Child JVM of {@link BadCatalogFileTest}: opens the catalog under the root folder given as the
 * first argument and prints {@code ready}, then keeps it open until its standard input ends (or it
 * is killed). If the catalog is in use it prints {@code in-use <message>} and ends.
 */
public final class HoldCatalogOpen {
    private HoldCatalogOpen() {}

    public static void main(String[] args) throws IOException {
        MapDbCatalog catalog;
        try {
            catalog = TestCatalogs.open(Paths.get(args[0]));
        } catch (CatalogInUseException e) {
            System.out.println("in-use " + e.getMessage());
            System.out.flush();
            return;
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // hold the catalog open
        }
        catalog.close();
    }
}
