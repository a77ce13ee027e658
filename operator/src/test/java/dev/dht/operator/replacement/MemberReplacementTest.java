package dev.dht.operator.replacement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberReplacementTest {
    static Pod pod(String name, boolean annotated, boolean deleting) {
        var b = new PodBuilder().withNewMetadata().withName(name).endMetadata();
        if (annotated) {
            b.editMetadata()
                    .addToAnnotations(MemberReplacement.ANNOTATION, "true")
                    .endMetadata();
        }
        if (deleting) {
            b.editMetadata().withDeletionTimestamp("2026-11-26T12:00:00Z").endMetadata();
        }
        return b.build();
    }

    static PersistentVolumeClaim claim(String name, boolean deleting) {
        var b = new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata();
        if (deleting) {
            b.editMetadata().withDeletionTimestamp("2026-11-26T12:00:00Z").endMetadata();
        }
        return b.build();
    }

    @Test
    void anAnnotatedMemberLosesItsClaimThenItsPod() {
        var d = MemberReplacement.decide(
                "dht",
                List.of(pod("dht-0", false, false), pod("dht-1", true, false)),
                Map.of("data-dht-0", claim("data-dht-0", false), "data-dht-1", claim("data-dht-1", false)));
        assertThat(d.claims()).containsExactly("data-dht-1");
        assertThat(d.pods()).containsExactly("dht-1");
    }

    @Test
    void nothingTwiceAndNothingForOtherPods() {
        assertThat(MemberReplacement.decide(
                                "dht",
                                List.of(pod("dht-1", true, true), pod("other-1", true, false)),
                                Map.of("data-dht-1", claim("data-dht-1", true)))
                        .none())
                .as("already on its way; not a member")
                .isTrue();
        assertThat(MemberReplacement.decide(
                                "dht",
                                List.of(pod("dht-1", true, false)),
                                Map.of("data-dht-1", claim("data-dht-1", true)))
                        .claims())
                .as("the claim is already going")
                .isEmpty();
    }

    @Test
    void aPodMadeWhileItsOldClaimWasStillBeingDeletedIsDeletedAgain() {
        var d = MemberReplacement.decide(
                "dht", List.of(pod("dht-2", false, false)), Map.of("data-dht-2", claim("data-dht-2", true)));
        assertThat(d.claims()).isEmpty();
        assertThat(d.pods()).containsExactly("dht-2");
    }
}
