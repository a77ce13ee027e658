package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What a DhtBackupSchedule does now (pure): start the run that is due unless one still runs (never two at once; a
 * run missed meanwhile starts once the previous one ends, only the latest), and whether retention has work to do.
 * Which stored backups go is decided by the members' prune ({@code POST /v0/admin/backup/prune}, Retention there)
 * from the manifests; this only says when to ask.
 */
public final class SchedulePlan {
    private SchedulePlan() {}

    /** One of the schedule's DhtBackups. */
    public record Run(String name, BackupPhase phase, String backupId, Instant startPoint, Instant created) {
        boolean active() {
            return phase == null || phase == BackupPhase.Pending || phase == BackupPhase.Running;
        }
    }

    /**
     * @param start     the run to start now: its scheduled time (the DhtBackup's name comes from it)
     * @param active    the run in progress, if any
     * @param prune     retention has work: a completed backup beyond the count or too old, or a failed one
     * @param kept      completed runs, newest first
     * @param next      the next scheduled time (for the status and the requeue)
     */
    public record Decision(
            Optional<Instant> start,
            Optional<String> active,
            boolean prune,
            List<String> kept,
            Optional<Instant> next) {}

    public static Decision decide(
            Cron cron,
            boolean suspend,
            Optional<Instant> lastScheduled,
            Instant created,
            List<Run> runs,
            int keepLast,
            Optional<Duration> maxAge,
            Instant now) {
        var active = runs.stream().filter(Run::active).map(Run::name).findFirst();
        Optional<Instant> start = Optional.empty();
        var latest = cron.latestAtOrBefore(now);
        Instant since = lastScheduled.orElse(created);
        if (!suspend && active.isEmpty() && latest.isPresent() && latest.get().isAfter(since)) {
            start = latest;
        }
        var completed = runs.stream()
                .filter(r -> r.phase() == BackupPhase.Completed)
                .sorted(Comparator.comparing((Run r) -> r.startPoint() == null ? Instant.EPOCH : r.startPoint())
                        .reversed())
                .toList();
        boolean prune = false;
        if (active.isEmpty()) {
            prune = completed.size() > Math.max(1, keepLast)
                    || runs.stream().anyMatch(r -> r.phase() == BackupPhase.Failed);
            if (maxAge.isPresent()) {
                for (int i = 1; i < completed.size(); i++) {
                    var t0 = completed.get(i).startPoint();
                    if (t0 != null && Duration.between(t0, now).compareTo(maxAge.get()) > 0) {
                        prune = true;
                    }
                }
            }
        }
        var kept = new ArrayList<String>();
        completed.stream().limit(Math.max(1, keepLast)).forEach(r -> kept.add(r.name()));
        return new Decision(start, active, prune, kept, suspend ? Optional.empty() : cron.nextAfter(now));
    }

    /** "30d", "12h", "90m", "45s". */
    public static Duration parseAge(String text) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            case 'd' -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException("maxAge '" + text + "' must end in s, m, h or d");
        };
    }
}
