package dev.dht.node.backup;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a backup's manifest, last, and only when the backup is whole: a part from every member 0..n-1, complete,
 * for the same start point, taken in the same stable topology state by exactly the members that state lists, with
 * the same encryption key. A backup missing a member is never complete.
 */
final class BackupCompletion {
    private static final Logger log = LoggerFactory.getLogger(BackupCompletion.class);

    private BackupCompletion() {}

    /**
     * Marks backup id complete: every member 0..members-1 has a complete part for the same start point, taken in the
     * same stable topology state by the members that state lists; then the manifest is written, last.
     *
     * @throws BackupAgent.Conflict naming the members that are missing or disagree
     */
    static BackupManifest finish(BackupStore backups, String id, int members, long now) {
        BackupStore.checkId(id);
        BackupManifest existing = backups.manifest(id);
        if (existing != null) {
            return existing;
        }
        List<String> problems = new ArrayList<>();
        List<MemberManifest> parts = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            MemberManifest m = backups.member(id, i);
            if (m == null || !m.complete()) {
                problems.add("member " + i + (m == null ? " has stored nothing" : " has not stored every file"));
            } else {
                parts.add(m);
            }
        }
        if (problems.isEmpty()) {
            MemberManifest first = parts.get(0);
            java.util.Set<String> selves = new java.util.HashSet<>();
            for (MemberManifest m : parts) {
                selves.add(m.self());
                if (m.t0() != first.t0()
                        || m.topologyVersion() != first.topologyVersion()
                        || !m.members().equals(first.members())) {
                    problems.add("member " + m.member() + " took its checkpoint at another start point or topology"
                            + " (t0 " + m.t0() + ", version " + m.topologyVersion() + ") than member 0 (t0 "
                            + first.t0() + ", version " + first.topologyVersion() + ")");
                }
                if (!java.util.Objects.equals(m.encryption(), first.encryption())) {
                    problems.add("member " + m.member() + " used another encryption key");
                }
            }
            if (!selves.equals(new java.util.HashSet<>(first.members()))) {
                problems.add("the parts come from " + selves + ", the topology lists " + first.members());
            }
        }
        if (!problems.isEmpty()) {
            throw new BackupAgent.Conflict("backup " + id + " is not complete: " + String.join("; ", problems));
        }
        List<String> paths = new ArrayList<>();
        long bytes = 0;
        long records = 0;
        for (MemberManifest m : parts) {
            paths.add(BackupStore.memberPath(id, m.member()));
            bytes += m.bytes();
            records += m.records();
        }
        BackupManifest manifest =
                new BackupManifest(id, parts.get(0).t0(), now, parts.get(0).encryption(), paths, bytes, records);
        backups.putManifest(manifest);
        log.info("backup {} complete: {} members, {} bytes", id, members, bytes);
        return manifest;
    }
}
