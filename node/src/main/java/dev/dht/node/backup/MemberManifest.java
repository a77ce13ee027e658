package dev.dht.node.backup;

import dev.dht.node.json.Json;
import java.util.List;

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
public record MemberManifest(
        String backup,
        long t0,
        int member,
        String self,
        long topologyVersion,
        List<String> members,
        long takenAt,
        String encryption,
        long records,
        List<FileRef> files,
        boolean complete) {
    public static final int FORMAT = 1;

    /** A file of the checkpoint: its name there, its size, and the object holding its (encoded) bytes. */
    public record FileRef(String name, long size, String object) {}

    public MemberManifest {
        members = List.copyOf(members);
        files = List.copyOf(files);
    }

    public MemberManifest completed() {
        return new MemberManifest(
                backup, t0, member, self, topologyVersion, members, takenAt, encryption, records, files, true);
    }

    public long bytes() {
        return files.stream().mapToLong(FileRef::size).sum();
    }

    /** As stored: the format first, the total bytes beside the files (what 0.1.0 wrote and reads). */
    private record Stored(
            int format,
            String backup,
            long t0,
            int member,
            String self,
            long topologyVersion,
            List<String> members,
            long takenAt,
            String encryption,
            long records,
            long bytes,
            boolean complete,
            List<FileRef> files) {}

    public byte[] toJson() {
        return Json.bytes(new Stored(
                FORMAT,
                backup,
                t0,
                member,
                self,
                topologyVersion,
                members,
                takenAt,
                encryption,
                records,
                bytes(),
                complete,
                files));
    }

    public static MemberManifest fromJson(byte[] json) {
        Stored m = Json.read(json, Stored.class);
        if (m.format() != FORMAT) {
            throw new IllegalArgumentException(
                    "member manifest format " + m.format() + " is not " + FORMAT + " (made by another version of dht)");
        }
        if (m.backup() == null || m.members() == null || m.files() == null) {
            throw new IllegalArgumentException("a member manifest needs its backup, members and files");
        }
        return new MemberManifest(
                m.backup(),
                m.t0(),
                m.member(),
                m.self(),
                m.topologyVersion(),
                m.members(),
                m.takenAt(),
                m.encryption(),
                m.records(),
                m.files(),
                m.complete());
    }
}
