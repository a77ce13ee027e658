package dev.dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.support.TestNode;
import java.net.BindException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node does not start on a port that a live node holds. With SO_REUSEPORT on its listeners it did: the second
 * process bound the same client (or member) port and the kernel split new connections between the two, so a node
 * still draining, or a second `make run`, silently took a share of another node's clients and members (seen as a
 * new TLS node's peers reaching an old plaintext one: thousands of "plaintext connection?" handshake failures).
 */
class PortInUseTest {

    @Test
    void aSecondNodeOnTheClientPortOfALiveOneFailsToStart(@TempDir Path a, @TempDir Path b) throws Exception {
        try (TestNode first = TestNode.start(a)) {
            refused(first, NodeConfig.defaults(first.port(), b), "cannot listen on port " + first.port() + " (client)");
        }
    }

    @Test
    void aSecondNodeOnTheMemberPortOfALiveOneFailsToStart(@TempDir Path a, @TempDir Path b) throws Exception {
        try (TestNode first = TestNode.start(a)) {
            NodeConfig defaults = NodeConfig.defaults(TestNode.freePort(), b);
            SecuritySettings s = defaults.security();
            // another client port, the first node's member port
            int offset = first.node().config().memberPort() - defaults.port();
            NodeConfig second = defaults.withSecurity(s.withMemberPortOffset(offset));
            assertThat(second.memberPort()).isEqualTo(first.node().config().memberPort());
            refused(first, second, "or " + second.memberPort() + " (member)");
        }
    }

    /** The second node does not start, names the port, and the first one still serves. */
    private static void refused(TestNode first, NodeConfig second, String message) {
        assertThatThrownBy(() -> TestNode.start(second).close())
                .hasRootCauseInstanceOf(BindException.class)
                .hasMessageContaining(message);
        assertThat(first.get("/v0/status").statusCode())
                .as("the first node still serves")
                .isEqualTo(200);
    }
}
