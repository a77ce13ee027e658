package dev.dht.node.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(m.urls()).containsExactly("http://node-0.dht.svc.cluster.local:8080",
                "http://node-1.dht.svc.cluster.local:8080");
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
        ClusterMembers m = ClusterMembers.of(List.of("http://localhost:8080", "http://127.0.0.1:8081", "http://x:8082"));
        assertThat(m.findLocal(8080)).isEqualTo("http://localhost:8080");
        assertThat(m.findLocal(8081)).isEqualTo("http://127.0.0.1:8081");
        assertThat(m.findLocal(8082)).isNull();
        assertThat(m.contains("http://LOCALHOST:8080/")).isTrue();
    }
}
