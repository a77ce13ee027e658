package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import one.nio.http.HttpClient;
import one.nio.http.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The course's SingleNodeTest, scenario by scenario, with the course's one-nio client. */
class SingleNodeTest {
    @TempDir
    static Path dir;

    static TestNode node;

    @BeforeAll
    static void start() {
        node = TestNode.start(dir.resolve("node"));
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static HttpClient client() {
        return node.client();
    }

    private static String randomId() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    private static byte[] randomValue() {
        byte[] v = new byte[1024];
        ThreadLocalRandom.current().nextBytes(v);
        return v;
    }

    private static String path(String id) {
        return "/v0/entity?id=" + id;
    }

    private static Response get(String id) throws Exception {
        return client().get(path(id));
    }

    private static Response put(String id, byte[] value) throws Exception {
        return client().put(path(id), value);
    }

    private static Response delete(String id) throws Exception {
        return client().delete(path(id));
    }

    @Test
    void emptyKey() throws Exception {
        assertThat(get("").getStatus()).isEqualTo(400);
        assertThat(delete("").getStatus()).isEqualTo(400);
        assertThat(put("", new byte[] {0}).getStatus()).isEqualTo(400);
    }

    @Test
    void absentParameterRequest() throws Exception {
        assertThat(client().get("/v0/entity").getStatus()).isEqualTo(400);
    }

    @Test
    void badRequest() throws Exception {
        assertThat(client().get("/abracadabra").getStatus()).isEqualTo(400);
    }

    @Test
    void getAbsent() throws Exception {
        assertThat(get("absent").getStatus()).isEqualTo(404);
    }

    @Test
    void deleteAbsent() throws Exception {
        assertThat(delete("absent").getStatus()).isEqualTo(202);
    }

    @Test
    void insert() throws Exception {
        String key = randomId();
        byte[] value = randomValue();
        assertThat(put(key, value).getStatus()).isEqualTo(201);
        Response response = get(key);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getBody()).isEqualTo(value);
    }

    @Test
    void insertEmpty() throws Exception {
        String key = randomId();
        assertThat(put(key, new byte[0]).getStatus()).isEqualTo(201);
        Response response = get(key);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getBody()).isEmpty();
    }

    @Test
    void lifecycle2keys() throws Exception {
        String key1 = randomId();
        byte[] value1 = randomValue();
        String key2 = randomId();
        byte[] value2 = randomValue();

        assertThat(put(key1, value1).getStatus()).isEqualTo(201);
        assertThat(get(key1).getBody()).isEqualTo(value1);
        assertThat(put(key2, value2).getStatus()).isEqualTo(201);
        assertThat(get(key1).getBody()).isEqualTo(value1);
        assertThat(get(key2).getBody()).isEqualTo(value2);

        assertThat(delete(key1).getStatus()).isEqualTo(202);
        assertThat(get(key1).getStatus()).isEqualTo(404);
        assertThat(get(key2).getBody()).isEqualTo(value2);

        assertThat(delete(key2).getStatus()).isEqualTo(202);
        assertThat(get(key2).getStatus()).isEqualTo(404);
    }

    @Test
    void upsert() throws Exception {
        String key = randomId();
        byte[] value1 = randomValue();
        byte[] value2 = randomValue();
        assertThat(put(key, value1).getStatus()).isEqualTo(201);
        assertThat(put(key, value2).getStatus()).isEqualTo(201);
        Response response = get(key);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getBody()).isEqualTo(value2);
    }

    @Test
    void upsertEmpty() throws Exception {
        String key = randomId();
        assertThat(put(key, randomValue()).getStatus()).isEqualTo(201);
        assertThat(put(key, new byte[0]).getStatus()).isEqualTo(201);
        Response response = get(key);
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getBody()).isEmpty();
    }

    @Test
    void delete() throws Exception {
        String key = randomId();
        assertThat(put(key, randomValue()).getStatus()).isEqualTo(201);
        assertThat(delete(key).getStatus()).isEqualTo(202);
        assertThat(get(key).getStatus()).isEqualTo(404);
    }

    /** The course stops the service, wipes its directory and starts a new one on a new port: nothing survives. */
    @Test
    void respectFileFolder(@TempDir Path other) throws Exception {
        Path data = other.resolve("data");
        String key = randomId();
        byte[] value = randomValue();
        try (TestNode first = TestNode.start(data)) {
            assertThat(first.client().put(path(key), value).getStatus()).isEqualTo(201);
            assertThat(first.client().get(path(key)).getBody()).isEqualTo(value);
        }
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        try (TestNode second = TestNode.start(data)) {
            assertThat(second.client().get(path(key)).getStatus()).isEqualTo(404);
        }
    }
}
