package dev.dht.bench.scale;

import dev.dht.node.json.Json;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** scale-sim.json: every figure of the report, records as objects named by their components. */
final class ScaleJson {
    private ScaleJson() {}

    static String render(
            Map<String, Object> env,
            List<PlacementSim.Result> placement,
            List<RepairModel.Result> repair,
            List<TopologySim.Result> topology,
            List<ChoiceSim.Result> choice,
            List<PeerFanout.Result> fanout,
            Map<String, Object> operator) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("environment", env);
        root.put("placement", tree(placement));
        root.put("repair", tree(repair));
        root.put("topology", tree(topology));
        root.put("replicaChoice", tree(choice));
        root.put("nodeProcess", tree(fanout));
        root.put("operator", operator);
        return Json.write(root);
    }

    /** Records to maps, collections to lists, doubles rounded to 4 significant digits (NaN: null). */
    static Object tree(Object v) {
        if (v instanceof Record r) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (RecordComponent c : r.getClass().getRecordComponents()) {
                try {
                    m.put(c.getName(), tree(c.getAccessor().invoke(r)));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
            return m;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> m = new LinkedHashMap<>();
            map.forEach((k, x) -> m.put(String.valueOf(k), tree(x)));
            return m;
        }
        if (v instanceof Collection<?> c) {
            List<Object> out = new ArrayList<>();
            c.forEach(x -> out.add(tree(x)));
            return out;
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? null : Double.valueOf(String.format(java.util.Locale.ROOT, "%.4g", d));
        }
        if (v instanceof Integer i) {
            return i.longValue();
        }
        return v;
    }
}
