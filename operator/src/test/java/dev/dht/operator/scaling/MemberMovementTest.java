package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading the node's /v0/admin/movement answer (the contract in docs/cluster.md, "Endpoints"). */
class MemberMovementTest {
    static final String IDLE = """
      {"state":"idle","member":true,"topology":{"epoch":2,"id":"ab12","phase":"stable","stage":"stable",
       "members":["http://kv-0.kv-headless.prod.svc.cluster.local:8080",
                  "http://kv-1.kv-headless.prod.svc.cluster.local:8080"],
       "previous":null,"version":8,"proposer":"http://kv-0.kv-headless.prod.svc.cluster.local:8080"},
       "ranges":{"done":3,"left":0},"keys":{"sent":5000,"received":0,"left":0},
       "bytes":{"sent":640000,"received":0,"left":0},
       "cleanup":{"pending":false,"running":false,"dropped":0},"sent":true,"waitingFor":null,"future":"ignored"}
      """;
    static final String MOVING = """
      {"state":"moving","member":false,"topology":{"epoch":3,"id":"cd34","phase":"joint","stage":"joint",
       "members":["http://kv-0.kv-headless.prod.svc.cluster.local:8080"],
       "previous":["http://kv-0.kv-headless.prod.svc.cluster.local:8080",
                   "http://kv-1.kv-headless.prod.svc.cluster.local:8080"],"version":10,"proposer":"x"},
       "ranges":{"done":1,"left":2},"keys":{"sent":10,"received":0,"left":4000},
       "bytes":{"sent":1,"received":0,"left":512000},
       "cleanup":{"pending":true,"running":false,"dropped":0},"sent":false,
       "waitingFor":"barrier: waiting for [http://kv-1...] to be at the joint stage and drained"}
      """;
    static final String STARTING = """
      {"state":"moving","member":false,"topology":{"epoch":0,"id":"","phase":"joint","stage":"starting",
       "members":[],"previous":null},"ranges":{"done":0,"left":0},"keys":{"sent":0,"received":0,"left":0},
       "bytes":{"sent":0,"received":0,"left":0},"cleanup":{"pending":false,"running":false,"dropped":0},
       "sent":false,"waitingFor":null}
      """;

    @Test
    void anIdleMemberIsDoneWithItsListInAnyOrderAndSpelling() {
        var m = MemberMovement.fromJson(IDLE);
        assertThat(m.state()).isEqualTo(MemberMovement.State.IDLE);
        assertThat(m.member()).isTrue();
        assertThat(m.idleOn(List.of(
                        "http://kv-1.kv-headless.prod.svc.cluster.local:8080/",
                        "HTTP://KV-0.kv-headless.prod.svc.cluster.local:8080")))
                .isTrue();
        assertThat(m.idleOn(List.of("http://kv-0.kv-headless.prod.svc.cluster.local:8080")))
                .isFalse();
        assertThat(m.cleanedUp()).isTrue();
        assertThat(m.describe()).isEqualTo("idle");
    }

    @Test
    void aMovingMemberGivesItsEstimatesAndWhatItWaitsFor() {
        var m = MemberMovement.fromJson(MOVING);
        assertThat(m.state()).isEqualTo(MemberMovement.State.MOVING);
        assertThat(m.member()).isFalse();
        assertThat(m.phase()).isEqualTo("joint");
        assertThat(m.keysLeft()).isEqualTo(4000);
        assertThat(m.bytesLeft()).isEqualTo(512000);
        assertThat(m.cleanupPending()).isTrue();
        assertThat(m.idleOn(m.members())).isFalse();
        assertThat(m.describe()).startsWith("moving (4000 keys left; barrier: waiting for");
    }

    @Test
    void aStartingNodeIsMovingWithNoMembers() {
        var m = MemberMovement.fromJson(STARTING);
        assertThat(m.state()).isEqualTo(MemberMovement.State.MOVING);
        assertThat(m.members()).isEmpty();
        assertThat(m.idleOn(List.of("http://kv-0.kv-headless.prod.svc.cluster.local:8080")))
                .isFalse();
    }

    @Test
    void anythingElseIsUnknownAndSaysWhy() {
        assertThat(MemberMovement.fromJson("<html>").problem()).startsWith("not JSON");
        assertThat(MemberMovement.fromJson("[1]").problem()).isEqualTo("not a JSON object");
        assertThat(MemberMovement.fromJson("{\"state\":\"busy\"}").problem()).contains("no \"state\"");
        var unknown = MemberMovement.unknown("timed out");
        assertThat(unknown.idleOn(List.of())).isFalse();
        assertThat(unknown.describe()).isEqualTo("unknown (timed out)");
    }
}
