package dev.dht.operator.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.RepairSchedule;
import dev.dht.operator.scaling.ScaleObservation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RepairViewTest {
    static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
    static final RepairSchedule SIX_HOURS = new RepairSchedule(true, Duration.ofHours(6), 4 << 20);

    static MemberRepair report(Instant last, Instant oldest, long outOfSync, long bytes) {
        return new MemberRepair(
                last.toEpochMilli(), oldest == null ? 0 : oldest.toEpochMilli(), outOfSync, bytes, null, null);
    }

    @Test
    void sumsWhatTheMembersReportAndTakesTheOldestRepairOfAll() {
        var view = RepairView.of(
                Map.of(
                        Member.of(0), report(NOW.minusSeconds(600), NOW.minus(Duration.ofHours(5)), 2, 1000),
                        Member.of(1), report(NOW.minusSeconds(60), NOW.minus(Duration.ofHours(3)), 1, 24),
                        Member.of(2), MemberRepair.unknown("timed out")),
                SIX_HOURS,
                NOW.minus(Duration.ofDays(3)),
                NOW);
        assertThat(view.status().lastCompleteRound).isEqualTo("2026-11-26T11:59:00Z");
        assertThat(view.status().oldestRangeRepair).isEqualTo("2026-11-26T07:00:00Z");
        assertThat(view.status().rangesOutOfSync).isEqualTo(3);
        assertThat(view.status().bytesRepaired).isEqualTo(1024);
        assertThat(view.status().membersReporting).isEqualTo(2);
        assertThat(view.overdue()).isEqualTo("False");
        assertThat(view.rebuilding()).isEmpty();
    }

    @Test
    void overdueWhenSomeRangeWasNotRepairedForTwoIntervals() {
        var view = RepairView.of(
                Map.of(Member.of(0), report(NOW, NOW.minus(Duration.ofHours(13)), 0, 0)),
                SIX_HOURS,
                NOW.minus(Duration.ofDays(3)),
                NOW);
        assertThat(view.overdue()).isEqualTo("True");
        assertThat(view.reason()).isEqualTo("RepairOverdue");
        assertThat(view.message()).contains("2026-11-25T23:00:00Z").contains("tombstones");
    }

    @Test
    void aRangeNeverRepairedIsOverdueOnlyOnceTheClusterIsOlderThanTwoIntervals() {
        var never = Map.of(Member.of(0), report(NOW, null, 0, 0));
        assertThat(RepairView.of(never, SIX_HOURS, NOW.minus(Duration.ofHours(1)), NOW)
                        .overdue())
                .isEqualTo("False");
        var old = RepairView.of(never, SIX_HOURS, NOW.minus(Duration.ofHours(13)), NOW);
        assertThat(old.overdue()).isEqualTo("True");
        assertThat(old.status().oldestRangeRepair)
                .as("some range never repaired")
                .isNull();
    }

    @Test
    void noAnswerIsUnknownAndRepairOffIsNeverOverdue() {
        assertThat(RepairView.of(Map.of(Member.of(0), MemberRepair.unknown("refused")), SIX_HOURS, NOW, NOW)
                        .overdue())
                .isEqualTo("Unknown");
        var off = RepairView.of(
                Map.of(Member.of(0), report(NOW, null, 0, 0)),
                new RepairSchedule(false, Duration.ofHours(6), 1),
                NOW.minus(Duration.ofDays(30)),
                NOW);
        assertThat(off.overdue()).isEqualTo("False");
        assertThat(off.reason()).isEqualTo("RepairDisabled");
    }

    @Test
    void readsTheNodesReportIncludingARebuild() {
        var r = MemberRepair.fromJson("""
        {"enabled": true, "lastRound": {"at": 1795684000000, "rangesOutOfSync": 4, "keysRepaired": 9},
         "oldestRangeRepair": 1795680000000, "totals": {"bytesRepaired": 777},
         "rebuild": {"state": "rebuilding", "reason": "new volume", "rangesDone": 412, "rangesTotal": 3072,
                     "bytesReceived": 18874368, "waitingFor": null}, "someLaterField": 1}""");
        assertThat(r.known()).isTrue();
        assertThat(r.lastRoundAt()).isEqualTo(1795684000000L);
        assertThat(r.bytesRepaired()).isEqualTo(777);
        assertThat(r.rebuild().describe()).isEqualTo("412/3072 ranges, 18 MiB received");
        assertThat(MemberRepair.fromJson("{\"lastRound\": {}, \"rebuild\": {\"state\": \"ready\"}}")
                        .rebuilding())
                .isFalse();
        assertThat(MemberRepair.fromJson("<html>").known()).isFalse();
    }

    @Test
    void aScaleThatHasNotStartedWaitsWhileAMemberRebuilds() {
        var rebuild = new MemberRepair.Rebuild("rebuilding", "new volume", 10, 3072, 0, null);
        var settled = new ScaleObservation(
                5,
                Set.of(),
                Optional.of(Layout.single(3)),
                Optional.of(List.of("a", "b", "c")),
                Layout.single(3),
                true,
                Set.of(Member.of(0), Member.of(1), Member.of(2)),
                true,
                false);
        var held = RebuildHold.apply("dht", settled, Map.of(Member.of(1), rebuild));
        assertThat(held.observation().target()).isEqualTo(3);
        assertThat(held.refusal()).get().satisfies(r -> {
            assertThat(r.reason()).isEqualTo("MemberRebuilding");
            assertThat(r.message()).contains("dht-1").contains("10/3072 ranges");
        });
        assertThat(RebuildHold.apply("dht", settled, Map.of()).observation())
                .as("nothing rebuilds")
                .isEqualTo(settled);
        var moving = new ScaleObservation(
                5,
                Set.of(),
                Optional.of(Layout.single(5)),
                Optional.of(List.of("a", "b", "c", "d", "e")),
                Layout.single(5),
                false,
                Set.of(Member.of(0)),
                true,
                false);
        assertThat(RebuildHold.apply("dht", moving, Map.of(Member.of(1), rebuild))
                        .refusal())
                .as("a move in progress goes on")
                .isEmpty();
    }
}
