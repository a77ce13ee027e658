package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.http.Replicas;
import dev.dht.node.ring.Ring;
import dev.dht.node.topology.TopologyState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which members a request goes to in each stage, and how answers count (docs/cluster.md, "Which replicas, per
 * set"): outside the joint stage only S; in it the union of the key's replicas in S and T, each member once, with
 * a quorum needed in each set, and ack/from clamped per set.
 */
class JointPlanTest {
    private static final List<String> S = List.of("http://a:1", "http://b:1", "http://c:1");
    private static final List<String> T = List.of("http://a:1", "http://b:1", "http://c:1", "http://d:1", "http://e:1");
    private static final TopologyState STABLE = TopologyState.initial(ClusterMembers.of(S));
    private static final TopologyState ANNOUNCED = STABLE.announce(ClusterMembers.of(T));
    private static final TopologyState JOINT = ANNOUNCED.joint();

    private static long hash(String id) {
        return Ring.keyHash(id.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void announcedServesTheStableSetOnly() {
        Topology topology = new Topology("http://a:1", 3, ANNOUNCED);
        Topology.View v = topology.view();
        assertThat(v.joint()).isFalse();
        assertThat(v.serving()).containsExactlyInAnyOrderElementsOf(S);
        Topology.Plan p = v.plan(hash("k"), new Replicas(2, 3));
        assertThat(p.urls).containsExactlyInAnyOrderElementsOf(S);
        assertThat(p.ackT).isZero();
        assertThat(v.minAccepted())
                .as("stable(0) coordinators still serve S too")
                .isEqualTo(STABLE.version());
    }

    @Test
    void jointSendsToTheUnionOnceAndNeedsAQuorumInEach() {
        Topology topology = new Topology("http://a:1", 3, JOINT);
        Topology.View v = topology.view();
        assertThat(v.joint()).isTrue();
        assertThat(v.minAccepted()).isEqualTo(JOINT.version());
        Ring ringS = new Ring(S);
        Ring ringT = new Ring(T);
        int differentSets = 0;
        for (int k = 0; k < 500; k++) {
            String id = "key" + k;
            Topology.Plan p = v.plan(hash(id), new Replicas(2, 3));
            List<String> rs = ringS.replicasFor(hash(id), 3);
            List<String> rt = ringT.replicasFor(hash(id), 3);
            Set<String> union = new HashSet<>(rs);
            union.addAll(rt);
            assertThat(p.urls).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(union);
            for (int i = 0; i < p.urls.length; i++) {
                assertThat(p.inS(i)).isEqualTo(rs.contains(p.urls[i]));
                assertThat(p.inT(i)).isEqualTo(rt.contains(p.urls[i]));
            }
            assertThat(p.selfSlot).isEqualTo(List.of(p.urls).indexOf("http://a:1"));
            if (!new HashSet<>(rs).equals(new HashSet<>(rt))) {
                differentSets++;
                // every member of S answers: the quorum is reached only if at least 2 of them are in T too
                Topology.Count c = p.count();
                int inBoth = 0;
                for (int i = 0; i < p.urls.length; i++) {
                    if (p.inS(i)) {
                        c.ok(i);
                        inBoth += p.inT(i) ? 1 : 0;
                    }
                }
                assertThat(c.reached()).isEqualTo(inBoth >= 2);
                // then the members only in T: the answer that gives T its second is the one that completes it
                int okT = inBoth;
                for (int i = 0; i < p.urls.length; i++) {
                    if (!p.inS(i)) {
                        okT++;
                        assertThat(c.ok(i)).isEqualTo(okT == 2);
                    }
                }
                assertThat(c.reached()).isTrue();
            }
        }
        assertThat(differentSets).isGreaterThan(300);
    }

    @Test
    void aFailureInEitherSetCanLoseTheQuorum() {
        Topology.View v = new Topology("http://a:1", 3, JOINT).view();
        for (int k = 0; k < 200; k++) {
            Topology.Plan p = v.plan(hash("key" + k), new Replicas(2, 3));
            int onlyT = -1;
            int onlyT2 = -1;
            for (int i = 0; i < p.urls.length; i++) {
                if (!p.inS(i)) {
                    if (onlyT < 0) {
                        onlyT = i;
                    } else {
                        onlyT2 = i;
                    }
                }
            }
            if (onlyT2 < 0) {
                continue;
            }
            Topology.Count c = p.count();
            assertThat(c.fail(onlyT)).as("one of T's three may fail").isFalse();
            assertThat(c.fail(onlyT2))
                    .as("two of T's three may not, whatever S does")
                    .isTrue();
            assertThat(c.lost()).isTrue();
            return;
        }
        throw new AssertionError("no key with two new members in its T set");
    }

    @Test
    void defaultsUseEachSetsFactorAndExplicitValuesAreClamped() {
        // no --replication-factor: 3 copies in S, 5 in T
        Topology.View v = new Topology("http://a:1", 0, JOINT).view();
        Topology.Plan byDefault = v.plan(hash("k"), new Replicas(3, 5, true));
        assertThat(byDefault.fromS).isEqualTo(3);
        assertThat(byDefault.ackS).isEqualTo(2);
        assertThat(byDefault.fromT).isEqualTo(5);
        assertThat(byDefault.ackT).isEqualTo(3);
        assertThat(byDefault.urls).hasSize(5);
        Topology.Plan explicit = v.plan(hash("k"), new Replicas(4, 5));
        assertThat(explicit.fromS).isEqualTo(3);
        assertThat(explicit.ackS).isEqualTo(3);
        assertThat(explicit.fromT).isEqualTo(5);
        assertThat(explicit.ackT).isEqualTo(4);
        Topology.Plan small = v.plan(hash("k"), new Replicas(1, 2));
        assertThat(small.fromS).isEqualTo(2);
        assertThat(small.ackS).isEqualTo(1);
        assertThat(small.fromT).isEqualTo(2);
        assertThat(small.ackT).isEqualTo(1);
        assertThat(v.maxMembers()).isEqualTo(5);
        assertThat(v.onlyLocal(new Replicas(1, 1), hash("k")))
                .as("never the local shortcut while joint")
                .isFalse();
    }

    @Test
    void jointAdmitsTheAnnouncedStageOnlyDuringItsGrace() {
        Topology topology = new Topology("http://a:1", 3, ANNOUNCED);
        topology.install(JOINT, System.nanoTime() + 3_600_000_000_000L);
        Topology.View v = topology.view();
        assertThat(v.admits(JOINT.version())).isTrue();
        assertThat(v.admits(ANNOUNCED.version())).as("within the grace").isTrue();
        assertThat(v.admits(STABLE.version()))
                .as("S-only coordinators that never heard of the move")
                .isFalse();
        topology.install(JOINT, System.nanoTime());
        assertThat(topology.view().admits(ANNOUNCED.version()))
                .as("after the grace")
                .isFalse();
        assertThat(topology.view().admits(JOINT.finish().version())).isTrue();
    }

    @Test
    void rangesNeedEachSetBelowItsFactorUnreachable() {
        Topology.View v = new Topology("http://a:1", 3, JOINT).view();
        assertThat(v.rangeIncomplete(List.of("http://d:1", "http://e:1"))).isFalse();
        assertThat(v.rangeIncomplete(List.of("http://b:1", "http://c:1", "http://d:1")))
                .isTrue();
        assertThat(v.rangeIncomplete(new ArrayList<>(List.of("http://b:1", "http://c:1"))))
                .isFalse();
        Topology.View stable = new Topology("http://a:1", 2, STABLE).view();
        assertThat(stable.rangeIncomplete(List.of("http://b:1"))).isFalse();
        assertThat(stable.rangeIncomplete(List.of("http://b:1", "http://c:1"))).isTrue();
    }
}
