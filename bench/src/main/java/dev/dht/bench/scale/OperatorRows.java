package dev.dht.bench.scale;

import java.util.List;
import java.util.Map;

/** The operator's figures, as its scale run wrote them (operator/src/test/.../ReconcileScaleSim). */
final class OperatorRows {
    private OperatorRows() {}

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> operator) {
        StringBuilder b = new StringBuilder("| members | new cluster to Ready s | its pods ready s | reconciles "
                + "| operator API calls | calls per reconcile | status bytes | topology ConfigMap bytes "
                + "| one more member to Ready s | its API calls | its member polls | API calls in a quiet 30 s |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Object o : (List<Object>) operator.get("runs")) {
            Map<String, Object> r = (Map<String, Object>) o;
            Map<String, Object> grow = (Map<String, Object>) r.get("grow");
            double perReconcile = ((Number) r.get("apiCalls")).doubleValue()
                    / Math.max(1, ((Number) r.get("reconciles")).doubleValue());
            b.append(ScaleMarkdown.f(
                    "| %s | %.1f | %.1f | %s | %s | %.2f | %s | %s | %.1f | %s | %s | %s |%n",
                    r.get("members"),
                    seconds(r.get("readyMs")),
                    seconds(r.get("podsReadyMs")),
                    r.get("reconciles"),
                    r.get("apiCalls"),
                    perReconcile,
                    r.get("statusBytes"),
                    r.get("topologyBytes"),
                    seconds(r.get("growMs")),
                    grow.get("apiCalls"),
                    grow.get("memberPolls"),
                    r.get("steadyApiCalls")));
        }
        return b.toString();
    }

    private static double seconds(Object ms) {
        return ((Number) ms).doubleValue() / 1000;
    }
}
