package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dht.operator.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart's Grafana dashboard reads only metrics that the node or the operator defines. */
class DashboardTest {
    static final Pattern METRIC = Pattern.compile("\\b(dht_[a-z_]+)\\b");
    /** Labels the chart's PodMonitor adds, not metrics. */
    static final java.util.Set<String> LABELS = java.util.Set.of("dht_cluster");

    @Test
    void everyDashboardMetricIsOneTheCodeDefines() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(Repo.read("charts/dht-operator/dashboards/dht.json"));
        var used = new TreeSet<String>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                var m = METRIC.matcher(target.path("expr").asText());
                while (m.find()) {
                    used.add(m.group(1));
                }
            }
        }
        used.removeAll(LABELS);
        assertThat(used).hasSizeGreaterThan(20);
        String code = sources(Repo.path("node/src/main/java")) + sources(Repo.path("operator/src/main/java"));
        for (String metric : used) {
            String base = metric.replaceAll("_(total|bucket|count|sum)$", "");
            String micrometer = base.replace('_', '.');
            assertThat(code.contains("\"" + base + "\"") || code.contains("\"" + micrometer + "\""))
                    .as(metric + " is defined in the node's or the operator's code")
                    .isTrue();
        }
    }

    static String sources(Path dir) throws IOException {
        var text = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                text.append(Files.readString(f));
            }
        }
        return text.toString();
    }
}
