package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.MemberBackupStatus;
import dev.dht.operator.nodeadmin.AdminAnswer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Running backup's next step from its members' reports ({@code GET /v0/admin/backup}), pure. A member without
 * this backup's job (not asked yet, or restarted without it) is asked; a member that failed is asked again up to
 * {@link #MAX_RETRIES} times (a transient store error), then the backup fails naming it; once every member is done
 * the manifest is written. A member that does not answer holds the backup (its pod may be restarting).
 */
public final class BackupProgress {
    public static final int MAX_RETRIES = 3;

    private BackupProgress() {}

    /**
     * @param members   each member's status now
     * @param toStart   ordinals to ask for their part (POST /v0/admin/backup)
     * @param finish    every member is done: write the manifest
     * @param failure   the backup failed for good, and why
     * @param message   a one-line summary
     */
    public record Step(
            List<MemberBackupStatus> members,
            List<Integer> toStart,
            boolean finish,
            Optional<String> failure,
            String message) {}

    /**
     * @param backupId the backup's id
     * @param pods     the members' pods, by ordinal
     * @param previous their previous status (retries), by ordinal; may be shorter
     * @param reports  their answers, by ordinal
     */
    public static Step next(
            String backupId, List<String> pods, List<MemberBackupStatus> previous, Map<Integer, AdminAnswer> reports) {
        var members = new ArrayList<MemberBackupStatus>();
        var toStart = new ArrayList<Integer>();
        Optional<String> failure = Optional.empty();
        int done = 0;
        long bytesDone = 0;
        long bytesTotal = 0;
        var waiting = new ArrayList<String>();
        for (int i = 0; i < pods.size(); i++) {
            var before = i < previous.size() ? previous.get(i) : null;
            int retries = before == null || before.retries == null ? 0 : before.retries;
            var m = new MemberBackupStatus();
            m.name = pods.get(i);
            AdminAnswer r = reports.get(i);
            if (r == null || !r.answered() || r.status() != 200) {
                m.phase = "unknown";
                m.message = r == null ? "not asked" : r.reason();
                m.retries = retries == 0 ? null : retries;
                waiting.add(m.name + " (" + m.message + ")");
                members.add(m);
                continue;
            }
            String phase = r.string("phase");
            boolean ours = backupId.equals(r.string("id"));
            if (ours) {
                m.phase = phase;
                m.filesDone = r.number("files", "done");
                m.filesTotal = r.number("files", "total");
                m.bytesDone = r.number("bytes", "done");
                m.bytesTotal = r.number("bytes", "total");
                m.bytesUploaded = r.number("bytes", "uploaded");
                bytesDone += m.bytesDone;
                bytesTotal += m.bytesTotal;
            }
            if (ours && "done".equals(phase)) {
                done++;
            } else if (ours && "failed".equals(phase)) {
                String error = r.string("error");
                if (retries >= MAX_RETRIES) {
                    m.message = error;
                    failure = Optional.of(m.name + " failed " + (retries + 1) + " times: " + error);
                } else {
                    retries++;
                    m.message = "failed (" + error + "); asked again (" + retries + " of " + MAX_RETRIES + ")";
                    toStart.add(i);
                }
            } else if (ours) {
                waiting.add(m.name + " " + phase);
            } else if ("checkpointing".equals(phase) || "uploading".equals(phase)) {
                m.phase = "busy";
                m.message = "still runs backup " + r.string("id");
                waiting.add(m.name + " busy with backup " + r.string("id"));
            } else {
                // not asked yet, or it lost the job (restarted without its data): ask; a new checkpoint is still after
                // T0
                m.phase = "starting";
                if (before != null
                        && before.phase != null
                        && !"unknown".equals(before.phase)
                        && !"starting".equals(before.phase)) {
                    retries++;
                    m.message = "had no job for this backup any more (restarted?): asked again";
                }
                toStart.add(i);
            }
            m.retries = retries == 0 ? null : retries;
            members.add(m);
        }
        boolean finish = failure.isEmpty() && done == pods.size() && !pods.isEmpty();
        String message = failure.orElse(
                finish
                        ? "every member stored its part: writing the manifest"
                        : done + "/" + pods.size() + " members done, " + bytesDone + " of " + bytesTotal
                                + " bytes stored" + (waiting.isEmpty() ? "" : "; " + String.join(", ", waiting)));
        return new Step(members, toStart, finish, failure, message);
    }
}
