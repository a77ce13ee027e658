package dev.dht.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.nodeadmin.AdminAnswer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FeatureLevelPlanTest {
    static final List<String> PODS = List.of("c-0", "c-1", "c-2");
    static final MemberRelease OLD = MemberRelease.of(new AdminAnswer(404, Map.of("error", "not found"), null));
    static final MemberRelease NEW_1 = new MemberRelease("0.2.0", 1, 2, null);
    static final MemberRelease NEW_2 = new MemberRelease("0.2.0", 2, 2, null);

    @Test
    void aMemberWithoutTheEndpointIsTheFirstReleaseAndAnUnusableAnswerIsUnknown() {
        assertThat(OLD).isEqualTo(new MemberRelease("0.1.0", 1, 1, null));
        assertThat(MemberRelease.of(AdminAnswer.failed("timed out"))).isEqualTo(MemberRelease.unknown("timed out"));
        assertThat(MemberRelease.of(new AdminAnswer(
                        200, Map.of("release", "0.2.0", "featureLevel", 2, "maxFeatureLevel", 2), null)))
                .isEqualTo(NEW_2);
        assertThat(MemberRelease.of(new AdminAnswer(200, Map.of("ok", 1), null)).known())
                .isFalse();
    }

    @Test
    void aMixedClusterIsNeverRaisedAndShowsNoRelease() {
        var plan = FeatureLevelPlan.decide(PODS, Map.of("c-0", NEW_1, "c-1", NEW_1, "c-2", OLD), null, false, true);
        assertThat(plan.toRaise()).isEmpty();
        assertThat(plan.release()).isEmpty();
        assertThat(plan.level()).contains(1);
        assertThat(plan.atTarget()).isTrue(); // 1 is all a 0.1.0 member supports: nothing to wait for
        var explicit = FeatureLevelPlan.decide(PODS, Map.of("c-0", NEW_1, "c-1", NEW_1, "c-2", OLD), 2, false, true);
        assertThat(explicit.toRaise()).isEmpty();
        assertThat(explicit.reason()).isEqualTo("WaitingForRelease");
        assertThat(explicit.message()).contains("c-2 (0.1.0, up to level 1)");
    }

    @Test
    void aMemberThatDidNotAnswerHoldsEveryRaise() {
        var plan = FeatureLevelPlan.decide(PODS, Map.of("c-0", NEW_1, "c-1", NEW_1), null, false, true);
        assertThat(plan.toRaise()).isEmpty();
        assertThat(plan.reason()).isEqualTo("WaitingForMembers");
        assertThat(plan.message()).contains("c-2 (not ready)");
        assertThat(plan.release()).isEmpty();
        var timedOut = FeatureLevelPlan.decide(
                PODS, Map.of("c-0", NEW_1, "c-1", NEW_1, "c-2", MemberRelease.unknown("timed out")), 2, false, true);
        assertThat(timedOut.toRaise()).isEmpty();
        assertThat(timedOut.message()).contains("c-2 (timed out)");
    }

    @Test
    void onceEveryMemberRunsTheNewReleaseAndTheClusterIsReadyTheLevelIsRaisedAutomatically() {
        var all = Map.of("c-0", NEW_1, "c-1", NEW_2, "c-2", NEW_1);
        var rolling = FeatureLevelPlan.decide(PODS, all, null, false, false);
        assertThat(rolling.toRaise()).isEmpty();
        assertThat(rolling.reason()).isEqualTo("WaitingForRoll");
        var ready = FeatureLevelPlan.decide(PODS, all, null, false, true);
        assertThat(ready.release()).isEqualTo("0.2.0");
        assertThat(ready.target()).contains(2);
        assertThat(ready.toRaise()).containsExactly("c-0", "c-2");
        assertThat(ready.atTarget()).isFalse();
        var done = FeatureLevelPlan.decide(PODS, Map.of("c-0", NEW_2, "c-1", NEW_2, "c-2", NEW_2), null, false, true);
        assertThat(done.atTarget()).isTrue();
        assertThat(done.level()).contains(2);
        assertThat(done.reason()).isEqualTo("AtTarget");
    }

    @Test
    void theHoldKeepsTheLevelAndAnExplicitLevelOverridesIt() {
        var all = Map.of("c-0", NEW_1, "c-1", NEW_1, "c-2", NEW_1);
        var held = FeatureLevelPlan.decide(PODS, all, null, true, true);
        assertThat(held.toRaise()).isEmpty();
        assertThat(held.atTarget()).isTrue();
        assertThat(held.reason()).isEqualTo("Held");
        assertThat(held.message()).contains("holdFeatureLevel").contains("support 2");
        assertThat(FeatureLevelPlan.decide(PODS, all, 2, true, true).toRaise()).containsExactly("c-0", "c-1", "c-2");
        assertThat(FeatureLevelPlan.decide(PODS, all, 1, false, true).toRaise()).isEmpty();
    }

    @Test
    void theStatusShowsEachMembersReleaseAndTheCondition() {
        var status = new DhtClusterStatus();
        status.members.add(new MemberStatus("c-0", "http://c-0", MemberState.Up, true));
        status.members.add(new MemberStatus("c-1", "http://c-1", MemberState.Up, false));
        var reports = Map.of("c-0", NEW_2);
        var plan = FeatureLevelPlan.decide(List.of("c-0", "c-1"), reports, null, false, false);
        plan.describe(status, reports, List.of(), Instant.parse("2026-12-06T12:00:00Z"));
        assertThat(status.members.get(0).release).isEqualTo("0.2.0");
        assertThat(status.members.get(0).featureLevel).isEqualTo(2);
        assertThat(status.members.get(1).release).isNull();
        assertThat(status.release).isEmpty();
        assertThat(status.featureLevel).isEqualTo(2);
        assertThat(status.conditions).singleElement().satisfies(c -> {
            assertThat(c.getType()).isEqualTo("FeatureLevel");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("WaitingForMembers");
        });
        assertThat(plan.target()).isEqualTo(Optional.empty());
    }
}
