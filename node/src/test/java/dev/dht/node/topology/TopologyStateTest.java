package dev.dht.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The topology state machine's values: identity, order, transitions, lineage, header. */
class TopologyStateTest {
    private static final ClusterMembers S = ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://c:1"));
    private static final ClusterMembers T =
            ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://c:1", "http://d:1", "http://e:1"));
    private static final ClusterMembers U = ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://d:1"));

    @Test
    void idIsTheFirst16HexOfSha256OfTheSortedCanonicalUrls() throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest("http://a:1\nhttp://b:1\nhttp://c:1".getBytes(StandardCharsets.UTF_8));
        assertThat(TopologyId.of(S)).isEqualTo(HexFormat.of().formatHex(digest).substring(0, 16));
        // order and spelling do not matter: the canonical form is what is hashed
        assertThat(TopologyId.of(ClusterMembers.of(List.of("HTTP://C:1/", "http://b:1", "http://A:1"))))
                .isEqualTo(TopologyId.of(S));
        assertThat(TopologyId.of(T)).isNotEqualTo(TopologyId.of(S)).hasSize(16);
    }

    @Test
    void aMoveGoesStableAnnouncedJointStableWithGrowingVersions() {
        TopologyState s0 = TopologyState.initial(S);
        TopologyState a1 = s0.announce(T);
        TopologyState j1 = a1.joint();
        TopologyState s1 = j1.finish();
        assertThat(List.of(s0.version(), a1.version(), j1.version(), s1.version()))
                .containsExactly(2L, 3L, 4L, 5L);
        assertThat(a1.epoch()).isEqualTo(1);
        assertThat(a1.stage()).isEqualTo(Stage.ANNOUNCED);
        assertThat(s1.stable()).isEqualTo(T);
        assertThat(s1.target()).isNull();
        assertThat(j1.participants()).containsExactlyElementsOf(T.urls());
        assertThat(s1.announce(U).version()).isEqualTo(6);
    }

    @Test
    void illegalStepsAreRefused() {
        TopologyState s0 = TopologyState.initial(S);
        assertThatThrownBy(() -> s0.announce(S)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(s0::joint).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(s0::finish).isInstanceOf(IllegalStateException.class);
        TopologyState j = s0.announce(T).joint();
        assertThatThrownBy(() -> j.announce(U))
                .as("no second move while one runs")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(j::abort)
                .as("only an announced move may be called off")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> j.reannounce(U)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new TopologyState(1, Stage.JOINT, S, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopologyState(1, Stage.STABLE, S, T)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void abortAndReannounce() {
        TopologyState a = TopologyState.initial(S).announce(T);
        TopologyState aborted = a.abort();
        assertThat(aborted).isEqualTo(new TopologyState(1, Stage.STABLE, S, null));
        assertThat(aborted.version()).isGreaterThan(a.version());
        TopologyState again = a.reannounce(U);
        assertThat(again).isEqualTo(new TopologyState(2, Stage.ANNOUNCED, S, U));
        assertThatThrownBy(() -> a.reannounce(T)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reachedByFollowsTheLineageOfTheMove() {
        TopologyState a = TopologyState.initial(S).announce(T);
        TopologyState j = a.joint();
        TopologyState done = j.finish();
        assertThat(a.reachedBy(a)).isTrue();
        assertThat(a.reachedBy(j)).isTrue();
        assertThat(a.reachedBy(done)).isTrue();
        assertThat(a.reachedBy(a.abort())).isTrue();
        assertThat(j.reachedBy(done)).isTrue();
        assertThat(j.reachedBy(a)).as("older").isFalse();
        assertThat(j.reachedBy(new TopologyState(1, Stage.STABLE, U, null)))
                .as("finalized elsewhere: other set")
                .isFalse();
        assertThat(j.reachedBy(a.abort()))
                .as("a joint move cannot have been called off")
                .isFalse();
        assertThat(j.reachedBy(new TopologyState(1, Stage.JOINT, S, U)))
                .as("same epoch, other target")
                .isFalse();
        assertThat(j.reachedBy(done.announce(U))).as("a later epoch is past it").isTrue();
        assertThat(done.reachedBy(done)).isTrue();
    }

    @Test
    void headerCarriesEpochStageAndIds() {
        TopologyState j = TopologyState.initial(S).announce(T).joint();
        assertThat(j.header()).isEqualTo("1.j." + TopologyId.of(S) + "." + TopologyId.of(T));
        assertThat(TopologyState.initial(S).header()).isEqualTo("0.s." + TopologyId.of(S) + ".-");
        String request = TopologyHeader.request(j, "http://a:1");
        assertThat(TopologyHeader.version(request)).isEqualTo(j.version());
        assertThat(TopologyHeader.version(j.header())).isEqualTo(j.version());
        assertThat(TopologyHeader.state(request)).isEqualTo(j.header());
        assertThat(TopologyHeader.sender(request)).isEqualTo("http://a:1");
        assertThat(TopologyHeader.sender(j.header())).isNull();
        assertThat(TopologyHeader.version("123456.a.x.y")).isEqualTo(3 * 123456);
        for (String bad :
                new String[] {null, "", "x", "1", "1.", "1.q.a.b", "a.j.b.c", ".j.a.b", "1234567890123456.s.a.-"}) {
            assertThat(TopologyHeader.version(bad)).as(String.valueOf(bad)).isEqualTo(TopologyHeader.NONE);
        }
    }

    @Test
    void reportsRoundTripThroughJson() {
        TopologyState j = TopologyState.initial(S).announce(T).joint();
        TopologyReport r = new TopologyReport("http://a:1", j, true, false);
        TopologyReport back = TopologyReport.fromJson(Json.write(r.toJson()));
        assertThat(back).isEqualTo(r);
        TopologyReport none = new TopologyReport("http://d:1", null, false, false);
        assertThat(TopologyReport.fromJson(Json.write(none.toJson()))).isEqualTo(none);
        String tampered = Json.write(r.toJson()).replace(TopologyId.of(T), "0000000000000000");
        assertThatThrownBy(() -> TopologyReport.fromJson(tampered)).hasMessageContaining("does not match");
    }

    @Test
    void aRackedSetTravelsWithItsRacksAndAMemberThatIgnoresThemLearnsNothing() {
        ClusterMembers racked = ClusterMembers.parseList("r1=http://a:1,r2=http://b:1,r1=http://c:1");
        TopologyState j = TopologyState.initial(S).announce(racked).joint();
        TopologyReport r = new TopologyReport("http://a:1", j, true, false);
        String json = Json.write(r.toJson());
        assertThat(json).contains("\"racks\":{\"http://a:1\":\"r1\"");
        assertThat(TopologyReport.fromJson(json)).isEqualTo(r);
        // what a member without racks reads: the members alone, whose id is not the set's
        String withoutRacks = json.replaceAll(",\"racks\":\\{[^}]*}", "");
        assertThat(withoutRacks).doesNotContain("racks");
        assertThatThrownBy(() -> TopologyReport.fromJson(withoutRacks)).hasMessageContaining("does not match");
        assertThat(Json.write(new TopologyReport("http://a:1", TopologyState.initial(S), true, true).toJson()))
                .as("a set without racks is reported as before")
                .doesNotContain("racks");
    }
}
