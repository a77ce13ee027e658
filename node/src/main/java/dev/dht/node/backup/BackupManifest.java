package dev.dht.node.backup;

import dev.dht.node.topology.Json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
public record BackupManifest(String backup, long t0, long completedAt, String encryption, List<String> members,
                             long bytes, long records) {
    public static final int FORMAT = 1;

    public BackupManifest {
        members = List.copyOf(members);
    }

    public byte[] toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("backup", backup);
        m.put("t0", t0);
        m.put("completedAt", completedAt);
        m.put("encryption", encryption);
        m.put("members", members);
        m.put("bytes", bytes);
        m.put("records", records);
        return Json.write(m).getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    public static BackupManifest fromJson(byte[] json) {
        Map<String, Object> m = Json.parseObject(new String(json, StandardCharsets.UTF_8));
        long format = (Long) m.get("format");
        if (format != FORMAT) {
            throw new IllegalArgumentException("backup manifest format " + format + " is not " + FORMAT);
        }
        return new BackupManifest((String) m.get("backup"), (Long) m.get("t0"), (Long) m.get("completedAt"),
                (String) m.get("encryption"), new ArrayList<>((List<String>) (List<?>) m.get("members")),
                (Long) m.get("bytes"), (Long) m.get("records"));
    }
}
