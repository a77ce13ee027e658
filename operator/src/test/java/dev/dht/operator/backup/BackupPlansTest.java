package dev.dht.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.MemberBackupStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.nodeadmin.AdminAnswer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure parts of backups, restores and schedules, walked without a cluster. */
class BackupPlansTest {
    static final List<String> PODS = List.of("c-0", "c-1", "c-2");
    static final Instant NOW = Instant.parse("2026-01-10T12:00:00Z");

    static AdminAnswer backupReport(String id, String phase, long done, long total) {
        return new AdminAnswer(
                200,
                Map.of(
                        "id",
                        id,
                        "phase",
                        phase,
                        "files",
                        Map.of("done", done, "total", total),
                        "bytes",
                        Map.of("done", done * 10, "total", total * 10, "uploaded", done * 10),
                        "error",
                        "boom"),
                null);
    }

    static ClusterView view(Phase phase, boolean settled) {
        return new ClusterView(true, true, phase, settled, false, PODS, List.of("u0", "u1", "u2"));
    }

    @Test
    void aBackupStartsOnlyOnAReadySettledClusterWithNoOtherBackupRunning() {
        assertThat(BackupAdmission.decide(view(Phase.Ready, true), "c", Optional.empty())
                        .verdict())
                .isEqualTo(BackupAdmission.Verdict.START);
        assertThat(BackupAdmission.decide(view(Phase.Scaling, false), "c", Optional.empty())
                        .message())
                .contains("settled topology");
        assertThat(BackupAdmission.decide(view(Phase.Ready, true), "c", Optional.of("other"))
                        .message())
                .contains("waiting for backup other");
        assertThat(BackupAdmission.decide(
                                new ClusterView(true, false, Phase.Ready, true, false, PODS, PODS),
                                "c",
                                Optional.empty())
                        .verdict())
                .isEqualTo(BackupAdmission.Verdict.FAIL);
        assertThat(BackupAdmission.decide(ClusterView.of(Optional.empty()), "c", Optional.empty())
                        .verdict())
                .isEqualTo(BackupAdmission.Verdict.WAIT);
    }

    @Test
    void membersWithoutTheJobAreAskedFailuresRetriedThenTheBackupFails() {
        var step = BackupProgress.next(
                "b1",
                PODS,
                List.of(),
                Map.of(
                        0, backupReport("b1", "uploading", 1, 4),
                        1, new AdminAnswer(200, Map.of("phase", "idle"), null),
                        2, AdminAnswer.failed("timed out")));
        assertThat(step.toStart()).containsExactly(1);
        assertThat(step.finish()).isFalse();
        assertThat(step.members().get(2).phase).isEqualTo("unknown");
        assertThat(step.message()).contains("0/3 members done").contains("c-2");

        var failed = BackupProgress.next(
                "b1",
                PODS,
                step.members(),
                Map.of(
                        0,
                        backupReport("b1", "failed", 1, 4),
                        1,
                        backupReport("b1", "done", 4, 4),
                        2,
                        backupReport("b1", "done", 4, 4)));
        assertThat(failed.toStart()).containsExactly(0);
        assertThat(failed.members().get(0).retries).isEqualTo(1);
        var last = failed.members();
        for (int i = 0; i < BackupProgress.MAX_RETRIES; i++) {
            var again = BackupProgress.next(
                    "b1",
                    PODS,
                    last,
                    Map.of(
                            0,
                            backupReport("b1", "failed", 1, 4),
                            1,
                            backupReport("b1", "done", 4, 4),
                            2,
                            backupReport("b1", "done", 4, 4)));
            last = again.members();
            if (again.failure().isPresent()) {
                assertThat(again.failure().get()).contains("c-0 failed").contains("boom");
                assertThat(again.finish()).isFalse();
                return;
            }
        }
        throw new AssertionError("never failed");
    }

    @Test
    void aMemberThatLostItsJobIsAskedAgainAndEveryMemberDoneFinishes() {
        var before = new MemberBackupStatus();
        before.name = "c-1";
        before.phase = "uploading";
        var step = BackupProgress.next(
                "b1",
                PODS,
                List.of(new MemberBackupStatus(), before),
                Map.of(
                        0,
                        backupReport("b1", "done", 4, 4),
                        1,
                        new AdminAnswer(200, Map.of("phase", "idle"), null),
                        2,
                        backupReport("b1", "done", 4, 4)));
        assertThat(step.toStart()).containsExactly(1);
        assertThat(step.members().get(1).message).contains("restarted");
        var done = BackupProgress.next(
                "b1",
                PODS,
                step.members(),
                Map.of(
                        0,
                        backupReport("b1", "done", 4, 4),
                        1,
                        backupReport("b1", "done", 4, 4),
                        2,
                        backupReport("b1", "done", 4, 4)));
        assertThat(done.finish()).isTrue();
        assertThat(done.toStart()).isEmpty();
    }

    static AdminAnswer restoreReport(String id, String phase, boolean serving) {
        return new AdminAnswer(
                200,
                Map.of(
                        "id",
                        id,
                        "phase",
                        phase,
                        "serving",
                        serving,
                        "parts",
                        Map.of("done", 1, "total", 1),
                        "bytes",
                        Map.of("downloaded", 5, "total", 5),
                        "records",
                        Map.of("sent", 100)),
                null);
    }

    @Test
    void aRestoreAsksEveryShareThenFinishesAllOnceAllAreSent() {
        var first = RestorePlan.next(
                "b1",
                PODS,
                Map.of(
                        0,
                        new AdminAnswer(200, Map.of("phase", "idle", "serving", false), null),
                        1,
                        restoreReport("b1", "restoring", false),
                        2,
                        AdminAnswer.failed("refused")),
                Optional.empty(),
                Map.of(),
                NOW);
        assertThat(first.toStart()).containsExactly(0);
        assertThat(first.finish()).isEmpty();
        assertThat(first.status().phase).isEqualTo(RestorePhase.Running);
        var sent = RestorePlan.next(
                "b1",
                PODS,
                Map.of(
                        0,
                        restoreReport("b1", "streamed", false),
                        1,
                        restoreReport("b1", "streamed", false),
                        2,
                        restoreReport("b1", "done", true)),
                Optional.of(first.status()),
                Map.of(),
                NOW);
        assertThat(sent.finish()).containsExactly(0, 1);
        assertThat(sent.status().recordsSent).isEqualTo(300);
        var loading = RestorePlan.next(
                "b1",
                PODS,
                Map.of(
                        0,
                        restoreReport("b1", "loading", false),
                        1,
                        restoreReport("b1", "streamed", false),
                        2,
                        restoreReport("b1", "loaded", false)),
                Optional.of(sent.status()),
                Map.of(),
                NOW);
        assertThat(loading.finish())
                .as("only the member not finished yet is asked again")
                .containsExactly(1);
        assertThat(loading.status().phase).isEqualTo(RestorePhase.Running);
        assertThat(loading.status().message).contains("load what they received").contains("c-0 loading");
        var done = RestorePlan.next(
                "b1",
                PODS,
                Map.of(
                        0,
                        restoreReport("b1", "done", true),
                        1,
                        restoreReport("b1", "done", true),
                        2,
                        restoreReport("b1", "done", true)),
                Optional.of(sent.status()),
                Map.of(),
                NOW);
        assertThat(done.status().phase).isEqualTo(RestorePhase.Completed);
        assertThat(done.poll()).isFalse();
    }

    @Test
    void aShareFailingTooOftenFailsTheRestore() {
        var failed = RestorePlan.next(
                "b1",
                PODS,
                Map.of(
                        0,
                        new AdminAnswer(
                                200,
                                Map.of(
                                        "id",
                                        "b1",
                                        "phase",
                                        "failed",
                                        "error",
                                        "wrong encryption key",
                                        "serving",
                                        false),
                                null)),
                Optional.empty(),
                Map.of(0, RestorePlan.MAX_RETRIES),
                NOW);
        assertThat(failed.status().phase).isEqualTo(RestorePhase.Failed);
        assertThat(failed.status().message).contains("wrong encryption key");
    }

    static SchedulePlan.Run run(String name, BackupPhase phase, String t0) {
        return new SchedulePlan.Run(name, phase, name + "-id", t0 == null ? null : Instant.parse(t0), NOW);
    }

    @Test
    void aScheduleStartsTheDueRunOnlyWhenNoneRunsAndPrunesAfterIt() {
        var cron = Cron.parse("0 * * * *");
        var created = Instant.parse("2026-01-10T09:30:00Z");
        var due = SchedulePlan.decide(
                cron,
                false,
                Optional.of(Instant.parse("2026-01-10T11:00:00Z")),
                created,
                List.of(),
                3,
                Optional.empty(),
                NOW);
        assertThat(due.start()).contains(Instant.parse("2026-01-10T12:00:00Z"));
        assertThat(due.next()).contains(Instant.parse("2026-01-10T13:00:00Z"));

        var busy = SchedulePlan.decide(
                cron,
                false,
                Optional.of(Instant.parse("2026-01-10T11:00:00Z")),
                created,
                List.of(run("s-1", BackupPhase.Running, "2026-01-10T11:00:00Z")),
                3,
                Optional.empty(),
                NOW);
        assertThat(busy.start()).as("never two runs at once").isEmpty();
        assertThat(busy.active()).contains("s-1");
        assertThat(busy.prune()).as("never prune while a run is in progress").isFalse();

        var suspended = SchedulePlan.decide(cron, true, Optional.empty(), created, List.of(), 3, Optional.empty(), NOW);
        assertThat(suspended.start()).isEmpty();

        var five = List.of(
                run("a", BackupPhase.Completed, "2026-01-10T07:00:00Z"),
                run("b", BackupPhase.Completed, "2026-01-10T08:00:00Z"),
                run("c", BackupPhase.Completed, "2026-01-10T09:00:00Z"),
                run("d", BackupPhase.Completed, "2026-01-10T10:00:00Z"),
                run("e", BackupPhase.Completed, "2026-01-10T11:00:00Z"));
        var prune = SchedulePlan.decide(
                cron,
                false,
                Optional.of(Instant.parse("2026-01-10T12:00:00Z")),
                created,
                five,
                3,
                Optional.empty(),
                NOW);
        assertThat(prune.prune()).isTrue();
        assertThat(prune.kept()).containsExactly("e", "d", "c");
        var enough = SchedulePlan.decide(
                cron,
                false,
                Optional.of(Instant.parse("2026-01-10T12:00:00Z")),
                created,
                five.subList(2, 5),
                3,
                Optional.empty(),
                NOW);
        assertThat(enough.prune()).isFalse();
        var tooOld = SchedulePlan.decide(
                cron,
                false,
                Optional.of(Instant.parse("2026-01-10T12:00:00Z")),
                created,
                five.subList(2, 5),
                3,
                Optional.of(Duration.ofHours(2)),
                NOW);
        assertThat(tooOld.prune()).isTrue();
        assertThat(BackupNames.scheduled("nightly", Instant.parse("2026-01-10T03:00:00Z")))
                .isEqualTo("nightly-20260110-0300");
    }
}
