package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.scaling.MemberMovement;
import dev.dht.operator.scaling.MemberMovement.State;
import dev.dht.operator.testing.NodeJars;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's side of the node's {@code GET /v0/admin/movement} contract against the real node: the packaged
 * node jar runs with a cluster file, as in a pod, and {@link HttpMemberAdmin} reads its answers while the file
 * grows from one member to two (the first moving towards a second that is not there yet), then once both are idle.
 * Every field the operator reads must be in the node's answer: a field the node renamed would otherwise read as its
 * default and pass.
 */
class NodeMovementContractIT {
    /** The paths {@link MemberMovement#fromJson} reads. */
    static final List<String> READ_PATHS = List.of(
            "/state",
            "/member",
            "/topology/phase",
            "/topology/members",
            "/keys/left",
            "/bytes/left",
            "/cleanup/pending",
            "/cleanup/running");
    /** Read too, but absent while null: the node's JSON layer leaves null fields out (MemberMovement reads both alike). */
    static final String WAITING_FOR = "/waitingFor";

    @TempDir
    Path dir;

    NodeJars nodes;
    final HttpMemberAdmin admin = new HttpMemberAdmin(Duration.ofSeconds(10), Duration.ofSeconds(10));
    final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void nodes() {
        nodes = new NodeJars(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        nodes.close();
        http.close();
    }

    @Test
    void theOperatorReadsTheNodesMovementAnswers() throws Exception {
        try {
            growFromOneMemberToTwo();
        } catch (Throwable t) {
            nodes.printLogs();
            throw t;
        }
    }

    void growFromOneMemberToTwo() throws Exception {
        // the member that sorts first proposes the move from {a} to {a, b}: a, so that a moves while b is absent
        var ports = NodeJars.twoFreePorts();
        List<String> urls =
                new ArrayList<>(ports.stream().map(p -> "http://localhost:" + p).toList());
        urls.sort(null);
        String a = urls.get(0);
        String b = urls.get(1);
        Path members = dir.resolve("members");
        writeMembers(members, List.of(a));
        nodes.start(a, members);

        await("a idle on {a}")
                .atMost(Duration.ofSeconds(60))
                .until(() -> admin.movement(a).join().idleOn(List.of(a)));
        MemberMovement idle = admin.movement(a).join();
        assertThat(idle.state()).isEqualTo(State.IDLE);
        assertThat(idle.member()).isTrue();
        assertThat(idle.phase()).isEqualTo("stable");
        assertThat(idle.members()).containsExactly(a);
        assertThat(idle.keysLeft()).isZero();
        assertThat(idle.cleanedUp()).isTrue();
        assertThat(idle.describe()).isEqualTo("idle");
        assertEveryReadFieldIsThere(a);

        writeMembers(members, List.of(a, b));
        await("a moving towards {a, b}")
                .atMost(Duration.ofSeconds(60))
                .until(() -> admin.movement(a).join().state() == State.MOVING);
        MemberMovement moving = admin.movement(a).join();
        assertThat(moving.phase()).isEqualTo("joint");
        assertThat(moving.members()).as("the target while moving").containsExactlyInAnyOrder(a, b);
        assertThat(moving.idleOn(List.of(a, b))).isFalse();
        assertThat(moving.idleOn(List.of(a))).isFalse();
        assertThat(moving.describe()).startsWith("moving (");
        assertEveryReadFieldIsThere(a);

        nodes.start(b, members);
        await("both idle on {a, b}")
                .atMost(Duration.ofSeconds(120))
                .until(() -> admin.movements(java.util.Map.of(0, a, 1, b)).values().stream()
                        .allMatch(m -> m.idleOn(List.of(a, b))));
        assertThat(admin.movement(b).join().member()).isTrue();
        assertEveryReadFieldIsThere(b);
    }

    /** The raw answer holds every path the operator reads (so that reading it never falls back to a default). */
    void assertEveryReadFieldIsThere(String member) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(member + HttpMemberAdmin.MOVEMENT_PATH))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode root = new ObjectMapper().readTree(r.body());
        for (String path : READ_PATHS) {
            assertThat(root.at(path).isMissingNode())
                    .as("%s in the node's answer %s", path, r.body())
                    .isFalse();
        }
        assertThat(root.at(WAITING_FOR).isMissingNode()
                        || root.at(WAITING_FOR).isNull()
                        || root.at(WAITING_FOR).isTextual())
                .as("%s in the node's answer %s", WAITING_FOR, r.body())
                .isTrue();
    }

    static void writeMembers(Path file, List<String> urls) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, String.join("\n", urls) + "\n");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
