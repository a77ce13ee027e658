package dev.dht.node.plane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.MemberPorts;
import org.junit.jupiter.api.Test;

class MemberPlaneTest {
    @Test
    void loopbackIsDecidedFromTheNameAloneWithoutDns() {
        for (String url : new String[] {
            "http://localhost:8080", "http://127.0.0.1:1", "http://127.9.8.7:2", "http://[::1]:3", "http://LOCALHOST:4"
        }) {
            assertThat(MemberPorts.isLoopback(url)).as(url).isTrue();
        }
        for (String url : new String[] {
            "http://10.0.0.1:8080",
            "http://pod-0.dht-headless:8080",
            "http://localhost.example.com:1",
            "http://127.0.0.1.nip.io:1",
            "http://[::2]:1"
        }) {
            assertThat(MemberPorts.isLoopback(url)).as(url).isFalse();
        }
    }

    @Test
    void theMemberPortIsTheClientPortPlusTheOffset() {
        MemberPlane plane = new MemberPlane(10_000);
        assertThat(plane.port("http://pod-1.dht:8080")).isEqualTo(18080);
        assertThat(plane.port(8081)).isEqualTo(18081);
        assertThat(MemberPorts.outOfRange(ClusterMembers.parseList("http://a:8080,http://b:60000"), 10_000))
                .containsExactly("http://b:60000");
    }

    @Test
    void problemsSayWhatToDo() {
        ClusterMembers mixed = ClusterMembers.parseList("http://localhost:8080,http://10.1.1.1:8080");
        assertThat(MemberPorts.problem(mixed, 10_000, false, false))
                .contains("http://10.1.1.1:8080")
                .contains("--member-insecure");
        assertThat(MemberPorts.problem(mixed, 10_000, false, true)).isNull();
        assertThat(MemberPorts.problem(mixed, 10_000, true, false)).isNull();
        assertThat(MemberPorts.problem(ClusterMembers.parseList("http://localhost:8080"), 10_000, false, false))
                .isNull();
        assertThat(MemberPlane.bindAddress("http://localhost:8080", false)).isEqualTo("127.0.0.1");
        assertThat(MemberPlane.bindAddress("http://[::1]:8080", false)).isEqualTo("::1");
        assertThat(MemberPlane.bindAddress("http://a:8080", true)).isEqualTo("0.0.0.0");
    }
}
