package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import one.nio.http.HttpClient;
import one.nio.http.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The course's SingleRangeTest (a fresh node per test), with the one-nio client that de-chunks bodies. */
class SingleRangeTest {
    @TempDir
    Path dir;

    TestNode node;

    @BeforeEach
    void start() {
        node = TestNode.start(dir);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    private HttpClient client() {
        return node.client();
    }

    private Response range(String start, String end) throws Exception {
        return client().get("/v0/entities?start=" + start + (end == null ? "" : "&end=" + end));
    }

    private void put(String key, String value) throws Exception {
        assertThat(client().put("/v0/entity?id=" + key, value.getBytes(StandardCharsets.UTF_8))
                        .getStatus())
                .isEqualTo(201);
    }

    private void assertRange(String start, String end, String expected) throws Exception {
        Response response = range(start, end);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(new String(response.getBody(), StandardCharsets.UTF_8)).isEqualTo(expected);
    }

    @Test
    void emptyKey() throws Exception {
        assertThat(client().get("/v0/entities?start=&end=").getStatus()).isEqualTo(400);
        assertThat(client().put("/v0/entity?id=", new byte[] {0}).getStatus()).isEqualTo(400);
    }

    @Test
    void absentParameterRequest() throws Exception {
        assertThat(client().get("/v0/entities").getStatus()).isEqualTo(400);
        assertThat(client().get("/v0/entities?end=end").getStatus()).isEqualTo(400);
    }

    @Test
    void getAbsent() throws Exception {
        assertRange("absent0", "absent1", "");
    }

    @Test
    void single() throws Exception {
        put("single1", "value1");
        assertRange("single1", "single2", "single1\nvalue1");
        assertRange("a", "single1", "");
        assertRange("single2", "single3", "");
    }

    @Test
    void triple() throws Exception {
        put("triple3", "value3");
        put("triple2", "");
        put("triple1", "value1");
        assertRange("triple1", "triple4", "triple1\nvalue1triple2\ntriple3\nvalue3");
        assertRange("triple0", "triple1", "");
        assertRange("triple0", "triple2", "triple1\nvalue1");
        assertRange("triple1", "triple2", "triple1\nvalue1");
        assertRange("triple2", "triple3", "triple2\n");
        assertRange("triple3", "triple4", "triple3\nvalue3");
        assertRange("triple4", null, "");
    }

    @Test
    void deletedKeysAreSkipped() throws Exception {
        put("d1", "a");
        put("d2", "b");
        put("d3", "c");
        assertThat(client().delete("/v0/entity?id=d2").getStatus()).isEqualTo(202);
        assertRange("d1", null, "d1\nad3\nc");
        put("d2", "again");
        assertRange("d1", "d3", "d1\nad2\nagain");
    }
}
