package dev.dht.node.backup;

import dev.dht.node.json.Json;
import java.util.List;

/**
 * A complete backup: written last, once every member's part is stored, so its presence is what "complete" means.
 *
 * @param backup      the id
 * @param t0          the start point: every write acknowledged before it is in the backup
 * @param completedAt when this manifest was written
 * @param encryption  key id, or null
 * @param members     the member manifests' paths (under the store's prefix), by member index
 * @param bytes       sum of the members' file sizes
 * @param records     sum of the members' record estimates (each key counts once per copy)
 */
public record BackupManifest(
        String backup, long t0, long completedAt, String encryption, List<String> members, long bytes, long records) {
    public static final int FORMAT = 1;

    public BackupManifest {
        members = List.copyOf(members);
    }

    /** As stored: the format first, then the fields. */
    private record Stored(
            int format,
            String backup,
            long t0,
            long completedAt,
            String encryption,
            List<String> members,
            long bytes,
            long records) {}

    public byte[] toJson() {
        return Json.bytes(new Stored(FORMAT, backup, t0, completedAt, encryption, members, bytes, records));
    }

    public static BackupManifest fromJson(byte[] json) {
        Stored m = Json.read(json, Stored.class);
        if (m.format() != FORMAT) {
            throw new IllegalArgumentException("backup manifest format " + m.format() + " is not " + FORMAT);
        }
        if (m.backup() == null || m.members() == null) {
            throw new IllegalArgumentException("a backup manifest needs its id and members");
        }
        return new BackupManifest(
                m.backup(), m.t0(), m.completedAt(), m.encryption(), m.members(), m.bytes(), m.records());
    }
}
