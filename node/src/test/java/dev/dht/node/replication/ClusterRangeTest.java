package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.NodeConfig;
import dev.dht.node.storage.Record;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** /v0/entities across real in-process members, and the merge rules on their own. */
class ClusterRangeTest {
    @TempDir
    Path dir;

    private static String body(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static String expected(Map<String, String> live) {
        StringBuilder sb = new StringBuilder();
        live.forEach((k, v) -> sb.append(k).append('\n').append(v));
        return sb.toString();
    }

    @Test
    void everyNodeListsTheWholeClusterNewestVersionsOnly() {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            TreeMap<String, String> live = new TreeMap<>();
            for (int i = 0; i < 60; i++) {
                String id = String.format("r%03d", i);
                // 1/1 puts each key on its primary only: no single node holds the whole cluster
                assertThat(c.node(i % 3)
                                .put("/v0/entity?id=" + id + "&replicas=1/1", ("v" + i).getBytes())
                                .statusCode())
                        .isEqualTo(201);
                live.put(id, "v" + i);
            }
            for (int i = 0; i < 60; i += 7) {
                String id = String.format("r%03d", i);
                assertThat(c.node((i + 1) % 3)
                                .delete("/v0/entity?id=" + id + "&replicas=1/3")
                                .statusCode())
                        .isEqualTo(202);
                live.remove(id);
            }
            for (int i = 3; i < 60; i += 11) {
                String id = String.format("r%03d", i);
                if (live.containsKey(id)) {
                    assertThat(c.node(2)
                                    .put("/v0/entity?id=" + id + "&replicas=1/2", new byte[0])
                                    .statusCode())
                            .isEqualTo(201);
                    live.put(id, "");
                }
            }
            for (int n = 0; n < 3; n++) {
                HttpResponse<byte[]> all = c.node(n).get("/v0/entities?start=r");
                assertThat(all.statusCode()).isEqualTo(200);
                assertThat(body(all)).isEqualTo(expected(live));
                assertThat(body(c.node(n).get("/v0/entities?start=r010&end=r020")))
                        .isEqualTo(expected(live.subMap("r010", "r020")));
                assertThat(body(c.node(n).get("/v0/entities?start=s"))).isEmpty();
            }
        }
    }

    @Test
    void oneMemberDownIsToleratedWhileEveryKeyKeepsACopy() {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            for (int i = 0; i < 20; i++) {
                assertThat(c.node(0)
                                .put("/v0/entity?id=k" + i + "&replicas=2/2", "v".getBytes())
                                .statusCode())
                        .isEqualTo(201);
            }
            c.stop(2);
            // replication factor 3 (the default): one member down leaves a copy of every key written at 2/2
            HttpResponse<byte[]> r = c.node(1).get("/v0/entities?start=k");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(body(r).split("v", -1)).hasSize(21);
        }
    }

    @Test
    void tooManyMembersDownIs504BeforeTheFirstByte() {
        try (LocalCluster c = LocalCluster.start(dir, 2, List.of(), (i, config) -> withFactorOne(config))) {
            c.node(0).put("/v0/entity?id=k&replicas=1/1", "v".getBytes());
            c.stop(1);
            assertThat(c.node(0).get("/v0/entities?start=a").statusCode()).isEqualTo(504);
        }
    }

    private static NodeConfig withFactorOne(NodeConfig c) {
        return c.withReplicationFactor(1);
    }

    @Test
    void mergeKeepsTheNewestVersionPerKeyAndHidesTombstones() {
        MergedRange merged = new MergedRange(List.of(
                source(
                        "a",
                        Record.value(1, "a1".getBytes()),
                        "b",
                        Record.value(5, "b5".getBytes()),
                        "d",
                        Record.tombstone(9)),
                source(
                        "b",
                        Record.tombstone(4),
                        "c",
                        Record.value(2, new byte[0]),
                        "d",
                        Record.value(8, "d8".getBytes())),
                source("a", Record.tombstone(3), "e", Record.value(1, "e1".getBytes()))));
        List<String> out = new ArrayList<>();
        while (merged.next()) {
            out.add(new String(merged.key(), StandardCharsets.UTF_8) + "="
                    + new String(
                            merged.valueArray(), merged.valueOffset(), merged.valueLength(), StandardCharsets.UTF_8));
        }
        merged.close();
        // a: tombstone@3 beats value@1; b: value@5 beats tombstone@4; c: empty value is a value; d: tombstone@9
        assertThat(out).containsExactly("b=b5", "c=", "e=e1");
    }

    private static RangeSource source(Object... keysAndRecords) {
        return new RangeSource() {
            private int i = -2;

            @Override
            boolean advance() {
                i += 2;
                return i < keysAndRecords.length
                        && at(((String) keysAndRecords[i]).getBytes(StandardCharsets.UTF_8), (Record)
                                keysAndRecords[i + 1]);
            }

            @Override
            public void close() {}
        };
    }
}
