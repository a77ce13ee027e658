package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterMembersTest {

    @Test
    void orderAndSpellingDoNotMatter() {
        ClusterMembers a = ClusterMembers.parseList("http://b:8080, http://A:8080/,http://c:8081");
        ClusterMembers b = ClusterMembers.parseList("HTTP://c:8081,http://a:8080,http://b:8080,http://b:8080");
        assertThat(a).isEqualTo(b);
        assertThat(a.urls()).containsExactly("http://a:8080", "http://b:8080", "http://c:8081");
        assertThat(a.size()).isEqualTo(3);
    }

    @Test
    void fileFormatSkipsCommentsAndBlankLines() {
        ClusterMembers m = ClusterMembers.parseFile("""
                # the members
                http://node-1.dht.svc.cluster.local:8080

                http://node-0.dht.svc.cluster.local:8080   # first
                """);
        assertThat(m.urls())
                .containsExactly(
                        "http://node-0.dht.svc.cluster.local:8080", "http://node-1.dht.svc.cluster.local:8080");
    }

    @Test
    void portDefaultsTo80() {
        assertThat(ClusterMembers.normalize("http://example")).isEqualTo("http://example:80");
    }

    @Test
    void rejectsWhatIsNotAnHttpBaseUrl() {
        assertThatThrownBy(() -> ClusterMembers.parseList("https://a:1")).hasMessageContaining("http://");
        assertThatThrownBy(() -> ClusterMembers.parseList("http://a:1/path")).hasMessageContaining("base URL");
        assertThatThrownBy(() -> ClusterMembers.parseList("a:1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterMembers.parseList(" , ")).hasMessageContaining("no members");
        assertThatThrownBy(() -> ClusterMembers.parseFile("# nothing\n")).hasMessageContaining("no members");
    }

    @Test
    void findsTheLocalMemberByPort() {
        ClusterMembers m =
                ClusterMembers.of(List.of("http://localhost:8080", "http://127.0.0.1:8081", "http://x:8082"));
        assertThat(m.findLocal(8080)).isEqualTo("http://localhost:8080");
        assertThat(m.findLocal(8081)).isEqualTo("http://127.0.0.1:8081");
        assertThat(m.findLocal(8082)).isNull();
        assertThat(m.contains("http://LOCALHOST:8080/")).isTrue();
    }

    @Test
    void entriesMayNameTheirRack() {
        ClusterMembers m = ClusterMembers.parseFile("""
                # zone a
                us-east-1a=http://dht-a-0.dht-headless.ns.svc:8080
                us-east-1b = HTTP://dht-b-0.dht-headless.ns.svc:8080/
                """);
        assertThat(m.urls())
                .containsExactly("http://dht-a-0.dht-headless.ns.svc:8080", "http://dht-b-0.dht-headless.ns.svc:8080");
        assertThat(m.hasRacks()).isTrue();
        assertThat(m.rackOf("http://dht-b-0.dht-headless.ns.svc:8080")).isEqualTo("us-east-1b");
        assertThat(m.entries())
                .containsExactly(
                        "us-east-1a=http://dht-a-0.dht-headless.ns.svc:8080",
                        "us-east-1b=http://dht-b-0.dht-headless.ns.svc:8080");
        assertThat(ClusterMembers.parseList(String.join(",", m.entries()))).isEqualTo(m);
        assertThat(ClusterMembers.parseList("http://a:1,http://b:1").hasRacks()).isFalse();
    }

    @Test
    void racksArePartOfTheSet() {
        ClusterMembers plain = ClusterMembers.parseList("http://a:1,http://b:1");
        ClusterMembers racked = ClusterMembers.parseList("x=http://a:1,y=http://b:1");
        ClusterMembers moved = ClusterMembers.parseList("x=http://a:1,x=http://b:1");
        assertThat(racked).isNotEqualTo(plain).isNotEqualTo(moved);
        assertThat(racked.urls()).isEqualTo(plain.urls());
        assertThat(racked.without(List.of("http://a:1"))).isEqualTo(ClusterMembers.parseList("y=http://b:1"));
    }

    @Test
    void aMixOfEntriesWithAndWithoutRacksIsAnErrorNamingThem() {
        assertThatThrownBy(() -> ClusterMembers.parseList("a=http://a:1,http://b:1,c=http://c:1"))
                .hasMessageContaining("either every member entry names a rack (RACK=URL) or none does")
                .hasMessageContaining("[http://b:1] name none")
                .hasMessageContaining("[a=http://a:1, c=http://c:1] do");
    }

    @Test
    void aRackIsADnsLabel() {
        for (String bad : List.of("Zone-A", "-a", "a-", "a_b", "a.b", "x".repeat(64))) {
            assertThatThrownBy(() -> ClusterMembers.parseList(bad + "=http://a:1"))
                    .as(bad)
                    .hasMessageContaining("is not a DNS label");
        }
        assertThat(ClusterMembers.parseList("x".repeat(63) + "=http://a:1").hasRacks())
                .isTrue();
        assertThatThrownBy(() -> ClusterMembers.parseList("a=http://a:1,b=http://a:1"))
                .hasMessageContaining("listed in two racks");
    }
}
