package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.DhtBackup;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Names of backups: in the store, and of the DhtBackups a schedule makes (pure). */
public final class BackupNames {
    private static final DateTimeFormatter RUN =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmm").withZone(ZoneOffset.UTC);

    private BackupNames() {}

    /**
     * The backup's id in the store: its name and the first 8 characters of its uid, so that a DhtBackup deleted and
     * made again with the same name never overwrites the first one's data.
     */
    public static String backupId(DhtBackup backup) {
        String uid = backup.getMetadata().getUid();
        return backup.getMetadata().getName()
                + (uid == null ? "" : "-" + uid.replace("-", "").substring(0, 8));
    }

    /** The DhtBackup a schedule makes for the run scheduled at that time: the same run always gets the same name. */
    public static String scheduled(String schedule, Instant at) {
        return schedule + "-" + RUN.format(at);
    }
}
