package dev.dht.bench.scale;

import java.util.List;
import java.util.Map;

/** The operator's figures, as its scale run wrote them (operator/src/test/.../ReconcileScaleIT). */
final class OperatorRows {
    private OperatorRows() {
    }

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> operator) {
        StringBuilder b = new StringBuilder("| members | to Ready s | reconciles | API calls | calls per reconcile"
                + " | steady reconcile ms | steady API calls |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (Object o : (List<Object>) operator.get("runs")) {
            Map<String, Object> r = (Map<String, Object>) o;
            b.append(ScaleMarkdown.f("| %s | %s | %s | %s | %s | %s | %s |%n", r.get("members"), r.get("readySeconds"),
                    r.get("reconciles"), r.get("apiCalls"), r.get("callsPerReconcile"), r.get("steadyReconcileMs"),
                    r.get("steadyApiCalls")));
        }
        return b.toString();
    }
}
