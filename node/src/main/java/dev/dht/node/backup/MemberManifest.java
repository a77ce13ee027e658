package dev.dht.node.backup;

import dev.dht.node.topology.Json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One member's part of a backup: its checkpoint's files and where each is stored. Written before the upload starts
 * ({@code complete: false}: its files are claimed, so a prune keeps them) and again when every file is stored.
 *
 * @param backup          the backup's id
 * @param t0              the start point (ms since the epoch) the operator fixed before asking any member
 * @param member          this part's index among the backup's members
 * @param self            the member's URL
 * @param topologyVersion the member's topology state when it took the checkpoint (stable; equal on every member)
 * @param members         that state's member list
 * @param takenAt         when the checkpoint was taken (the member's wall clock)
 * @param encryption      key id of the encryption, or null
 * @param records         RocksDB's estimate of the member's records when it took the checkpoint (or resumed the
 *                        upload)
 * @param files           the checkpoint's files
 * @param complete        every file is stored
 */
public record MemberManifest(String backup, long t0, int member, String self, long topologyVersion,
                             List<String> members, long takenAt, String encryption, long records,
                             List<FileRef> files, boolean complete) {
    public static final int FORMAT = 1;

    /** A file of the checkpoint: its name there, its size, and the object holding its (encoded) bytes. */
    public record FileRef(String name, long size, String object) {
    }

    public MemberManifest {
        members = List.copyOf(members);
        files = List.copyOf(files);
    }

    public MemberManifest completed() {
        return new MemberManifest(backup, t0, member, self, topologyVersion, members, takenAt, encryption, records,
                files, true);
    }

    public long bytes() {
        return files.stream().mapToLong(FileRef::size).sum();
    }

    public byte[] toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("backup", backup);
        m.put("t0", t0);
        m.put("member", member);
        m.put("self", self);
        m.put("topologyVersion", topologyVersion);
        m.put("members", members);
        m.put("takenAt", takenAt);
        m.put("encryption", encryption);
        m.put("records", records);
        m.put("bytes", bytes());
        m.put("complete", complete);
        List<Object> fs = new ArrayList<>();
        for (FileRef f : files) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", f.name());
            e.put("size", f.size());
            e.put("object", f.object());
            fs.add(e);
        }
        m.put("files", fs);
        return Json.write(m).getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    public static MemberManifest fromJson(byte[] json) {
        Map<String, Object> m = Json.parseObject(new String(json, StandardCharsets.UTF_8));
        long format = (Long) m.get("format");
        if (format != FORMAT) {
            throw new IllegalArgumentException("member manifest format " + format + " is not " + FORMAT
                    + " (made by another version of dht)");
        }
        List<FileRef> files = new ArrayList<>();
        for (Object o : (List<Object>) m.get("files")) {
            Map<String, Object> f = (Map<String, Object>) o;
            files.add(new FileRef((String) f.get("name"), (Long) f.get("size"), (String) f.get("object")));
        }
        return new MemberManifest((String) m.get("backup"), (Long) m.get("t0"), ((Long) m.get("member")).intValue(),
                (String) m.get("self"), (Long) m.get("topologyVersion"), (List<String>) (List<?>) m.get("members"),
                (Long) m.get("takenAt"), (String) m.get("encryption"), (Long) m.get("records"), files,
                Boolean.TRUE.equals(m.get("complete")));
    }
}
