package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.api.v1alpha1.RestoreStatus;
import dev.dht.operator.nodeadmin.AdminAnswer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The restore of a cluster made from a backup, step by step from the members' reports ({@code GET
 * /v0/admin/restore}), pure. Member {@code i} of {@code n} restores share {@code i}: the backed-up parts whose index
 * is {@code i} modulo {@code n}, so every part is read once whatever the sizes. Once every member has sent its share,
 * each is told to finish ({@code POST /v0/admin/restore/finish}): it loads what it received ({@code loading}, then
 * {@code loaded}) and serves once every member has loaded; until then no member serves clients.
 */
public final class RestorePlan {
    public static final int MAX_RETRIES = 3;

    private RestorePlan() {}

    /**
     * @param status  the restore's status after this step
     * @param toStart ordinals to ask for their share
     * @param finish  ordinals to tell the restore is done
     * @param poll    whether to look again soon
     */
    public record Step(RestoreStatus status, List<Integer> toStart, List<Integer> finish, boolean poll) {}

    /** Nothing to ask yet (members not ready, backup not found): Pending with why. */
    public static Step waiting(String backupId, Optional<RestoreStatus> previous, String why, Instant now) {
        var s = base(backupId, previous, now);
        s.phase = RestorePhase.Pending;
        s.message = why;
        return new Step(s, List.of(), List.of(), true);
    }

    /** The restore cannot happen (e.g. the DhtBackup named does not exist or failed). */
    public static Step failed(String backupId, Optional<RestoreStatus> previous, String why, Instant now) {
        var s = base(backupId, previous, now);
        s.phase = RestorePhase.Failed;
        s.message = why;
        s.completionTime = now.toString();
        return new Step(s, List.of(), List.of(), false);
    }

    /**
     * @param backupId the backup restored
     * @param members  the members' pods, by ordinal (every pod ready, the topology settled)
     * @param reports  their answers, by ordinal
     * @param retries  failures already asked again, by ordinal (the reconciler counts them)
     */
    public static Step next(
            String backupId,
            List<String> members,
            Map<Integer, AdminAnswer> reports,
            Optional<RestoreStatus> previous,
            Map<Integer, Integer> retries,
            Instant now) {
        var s = base(backupId, previous, now);
        if (previous.isPresent() && previous.get().phase == RestorePhase.Completed) {
            return new Step(previous.get(), List.of(), List.of(), false);
        }
        var toStart = new ArrayList<Integer>();
        var finish = new ArrayList<Integer>();
        var waiting = new ArrayList<String>();
        int streamed = 0;
        int done = 0;
        int partsDone = 0;
        int partsTotal = 0;
        long bytes = 0;
        long bytesTotal = 0;
        long records = 0;
        String failure = null;
        for (int i = 0; i < members.size(); i++) {
            AdminAnswer r = reports.get(i);
            String pod = members.get(i);
            if (r == null || !r.answered() || r.status() != 200) {
                waiting.add(pod + " (" + (r == null ? "not asked" : r.reason()) + ")");
                continue;
            }
            String phase = r.string("phase");
            boolean ours = backupId.equals(r.string("id"));
            if (ours) {
                partsDone += (int) r.number("parts", "done");
                partsTotal += (int) r.number("parts", "total");
                bytes += r.number("bytes", "downloaded");
                bytesTotal += r.number("bytes", "total");
                records += r.number("records", "sent");
            }
            if ("done".equals(phase) && Boolean.TRUE.equals(r.json().get("serving"))) {
                done++;
                streamed++;
            } else if (ours && "streamed".equals(phase)) {
                streamed++;
                finish.add(i);
            } else if (ours && ("loading".equals(phase) || "loaded".equals(phase))) {
                streamed++; // finished: loading what it received, then serving once every member has loaded
                waiting.add(pod + " " + phase);
            } else if (ours && "failed".equals(phase)) {
                int n = retries.getOrDefault(i, 0);
                if (n >= MAX_RETRIES) {
                    failure = pod + " failed: " + r.string("error");
                } else {
                    toStart.add(i);
                    waiting.add(pod + " failed (" + r.string("error") + "), asked again");
                }
            } else if (ours) {
                waiting.add(pod + " " + phase
                        + (r.string("waitingFor") == null ? "" : " (" + r.string("waitingFor") + ")"));
            } else {
                toStart.add(i);
            }
        }
        s.partsDone = partsDone;
        s.partsTotal = partsTotal;
        s.bytesDownloaded = bytes;
        s.bytesTotal = bytesTotal;
        s.recordsSent = records;
        if (failure != null) {
            s.phase = RestorePhase.Failed;
            s.message = failure;
            s.completionTime = now.toString();
            return new Step(s, List.of(), List.of(), false);
        }
        if (done == members.size()) {
            s.phase = RestorePhase.Completed;
            s.completionTime =
                    previous.map(p -> p.completionTime).filter(t -> t != null).orElse(now.toString());
            s.message = "restored: every member serves clients";
            return new Step(s, List.of(), List.of(), false);
        }
        s.phase = RestorePhase.Running;
        boolean allStreamed = streamed == members.size();
        s.message = allStreamed
                ? "every share sent: the members load what they received, then serve"
                        + (waiting.isEmpty() ? "" : " (" + String.join(", ", waiting) + ")")
                : streamed + "/" + members.size() + " members sent their share, " + partsDone + "/" + partsTotal
                        + " parts, " + bytes + "/" + bytesTotal + " bytes, " + records + " records"
                        + (waiting.isEmpty() ? "" : "; " + String.join(", ", waiting));
        return new Step(s, toStart, allStreamed ? finish : List.of(), true);
    }

    private static RestoreStatus base(String backupId, Optional<RestoreStatus> previous, Instant now) {
        var s = new RestoreStatus();
        s.backupId = backupId;
        s.startTime = previous.map(p -> p.startTime).filter(t -> t != null).orElse(now.toString());
        return s;
    }
}
