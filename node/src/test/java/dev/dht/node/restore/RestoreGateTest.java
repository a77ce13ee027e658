package dev.dht.node.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.http.ChunkSource;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.InlineResponder;
import dev.dht.node.http.RangeHandler;
import dev.dht.node.http.RangeRequest;
import dev.dht.node.http.Responder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import one.nio.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While a restore runs, every client request (entity on a worker or inline, range) gets the same 503 and reason and
 * never reaches the handler; members' calls pass; once the restore is done, clients pass too.
 */
class RestoreGateTest {
    private static final String REFUSAL = "restoring from a backup: this cluster serves clients once the restore is"
            + " done (GET /v0/admin/restore shows the progress)\n";

    @TempDir
    Path dir;

    private final List<String> reached = new ArrayList<>();

    private final EntityHandler entities = new EntityHandler() {
        @Override
        public void handle(EntityRequest request, Responder responder) {
            reached.add("handle");
        }

        @Override
        public boolean coordinates(EntityRequest request) {
            return true;
        }

        @Override
        public boolean tryInline(EntityRequest request, InlineResponder responder) {
            reached.add("tryInline");
            return false;
        }
    };

    private final RangeHandler ranges = (request, responder) -> reached.add("range");

    private static EntityRequest entity(boolean internal) {
        return new EntityRequest(EntityRequest.Op.GET, "k", new byte[] {'k'}, null, null, internal, 0, 0, null);
    }

    private static RangeRequest range(boolean internal) {
        return new RangeRequest(new byte[] {'a'}, null, internal, 0);
    }

    /** Keeps what it was answered. */
    private static final class Answers implements InlineResponder {
        final List<Response> sent = new ArrayList<>();

        @Override
        public void send(Response response) {
            sent.add(response);
        }

        @Override
        public void stream(ChunkSource source) {
            throw new AssertionError("no stream expected");
        }

        @Override
        public void toWorker() {
            throw new AssertionError("no hand-off expected");
        }
    }

    private static void assertRefused(Answers answers) {
        assertThat(answers.sent).hasSize(1);
        Response r = answers.sent.get(0);
        assertThat(r.getStatus()).isEqualTo(503);
        assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo(REFUSAL);
    }

    @Test
    void whileRestoringClientsGet503AndMembersPass() {
        RestoreGate gate = new RestoreGate(dir, true, true);
        assertThat(gate.restoring()).isTrue();
        EntityHandler e = gate.wrap(entities);
        RangeHandler r = gate.wrap(ranges);

        Answers onWorker = new Answers();
        e.handle(entity(false), onWorker);
        assertRefused(onWorker);
        Answers inline = new Answers();
        assertThat(e.tryInline(entity(false), inline)).isTrue();
        assertRefused(inline);
        assertThat(e.coordinates(entity(false))).isFalse();
        Answers range = new Answers();
        r.handle(range(false), range);
        assertRefused(range);
        assertThat(reached).isEmpty();

        Answers member = new Answers();
        e.handle(entity(true), member);
        assertThat(e.tryInline(entity(true), member)).isFalse();
        assertThat(e.coordinates(entity(true))).isTrue();
        r.handle(range(true), member);
        assertThat(member.sent).isEmpty();
        assertThat(reached).containsExactly("handle", "tryInline", "range");
    }

    @Test
    void onceDoneClientsPassForGood() {
        RestoreGate gate = new RestoreGate(dir, true, true);
        gate.done("r1");
        EntityHandler e = gate.wrap(entities);
        Answers client = new Answers();
        e.handle(entity(false), client);
        assertThat(e.tryInline(entity(false), client)).isFalse();
        assertThat(e.coordinates(entity(false))).isTrue();
        gate.wrap(ranges).handle(range(false), client);
        assertThat(client.sent).isEmpty();
        assertThat(reached).containsExactly("handle", "tryInline", "range");
        assertThat(new RestoreGate(dir, true, true).restoring()).isFalse(); // a restart does not go back
    }
}
