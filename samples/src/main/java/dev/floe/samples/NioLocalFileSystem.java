package dev.floe.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local file system, except that it sets permissions with {@code java.nio} instead of
 * forking a {@code chmod} process for every file and directory it creates (what Hadoop does when
 * its native library is not installed, which costs tens of milliseconds per file).
 *
 * <p>The ingest uses it for {@code file:} paths unless {@code -Dingest.local-fs=hadoop}: on local
 * disk it makes a commit cost what the table's metadata costs, as on a real object store, rather
 * than four process forks.
 */
public class NioLocalFileSystem extends RawLocalFileSystem {
    private static final PosixFilePermission[] BITS = {
        PosixFilePermission.OTHERS_EXECUTE,
        PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ,
        PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE,
        PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ
    };

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
        short mode = permission.toShort();
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(BITS[bit]);
            }
        }
        try {
            Files.setPosixFilePermissions(pathToFile(path).toPath(), permissions);
        } catch (UnsupportedOperationException notPosix) {
            super.setPermission(path, permission);
        }
    }
}
