package dev.dht.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dht.operator.model.Member;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodReadinessTest {
    private static Pod pod(String name, boolean ready, boolean deleting) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withDeletionTimestamp(deleting ? "2026-12-06T00:00:00Z" : null)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    @Test
    void namesMissingUnreadyAndLeavingMembersInTheMembersOrder() {
        var members = List.of(Member.of(0), Member.of(1), Member.of(2), Member.of(3));
        var pods = List.of(pod("kv-0", true, false), pod("kv-1", false, false), pod("kv-3", true, true));
        assertEquals(List.of("kv-1", "kv-2", "kv-3"), PodReadiness.unready("kv", members, pods));
    }

    @Test
    void noneWhenEveryMemberIsReady() {
        var members = List.of(Member.of(0), Member.of(1));
        var pods = List.of(pod("kv-1", true, false), pod("kv-0", true, false), pod("other-0", false, false));
        assertEquals(List.of(), PodReadiness.unready("kv", members, pods));
    }
}
