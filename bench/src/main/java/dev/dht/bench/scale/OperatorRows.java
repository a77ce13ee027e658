package dev.dht.bench.scale;

import java.util.List;
import java.util.Map;

/** The operator's figures, as its scale run wrote them (operator/src/test/.../ReconcileScaleSim). */
final class OperatorRows {
    private OperatorRows() {
    }

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> operator) {
        StringBuilder b = new StringBuilder("| members | new cluster to Ready s | its pods ready s | reconciles "
                + "| operator API calls | calls per reconcile | status bytes | topology ConfigMap bytes "
                + "| one more member to Ready s | its API calls | its member polls | API calls in a quiet 30 s |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Object o : (List<Object>) operator.get("runs")) {
            Map<String, Object> r = (Map<String, Object>) o;
            Map<String, Object> grow = (Map<String, Object>) r.get("grow");
            b.append(ScaleMarkdown.f("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.get("members"),
                    r.get("readySeconds"), r.get("podsReadySeconds"), r.get("reconciles"), r.get("apiCalls"),
                    r.get("callsPerReconcile"), r.get("statusBytes"), r.get("topologyBytes"), r.get("growSeconds"),
                    grow.get("apiCalls"), grow.get("memberPolls"), r.get("steadyApiCalls")));
        }
        return b.toString();
    }
}
