package dev.dht.bench.ring;

import static dev.dht.bench.ring.SpreadReport.RF;

import dev.dht.bench.ring.SpreadReport.CostRow;
import dev.dht.bench.ring.SpreadReport.Environment;
import dev.dht.bench.ring.SpreadReport.LookupRow;
import dev.dht.bench.ring.SpreadReport.ManyRow;
import dev.dht.bench.ring.SpreadReport.MoveRow;
import dev.dht.bench.ring.SpreadReport.Options;
import dev.dht.bench.ring.SpreadReport.Spread;
import dev.dht.bench.ring.SpreadReport.SpreadRow;
import dev.dht.node.ring.Ring;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** ring.json: every measured row, for plots and for comparing runs. */
final class SpreadJson {
    static String render(
            Options options,
            Environment env,
            List<SpreadRow> spread,
            List<ManyRow> many,
            List<MoveRow> moves,
            List<CostRow> costs,
            List<LookupRow> lookups,
            RackSpread.Result racks) {
        StringBuilder j = new StringBuilder();
        j.append("{\n");
        j.append(String.format(
                Locale.ROOT,
                "  \"date\": \"%s\", \"java\": \"%s\", \"cpus\": %d, \"arch\": \"%s\","
                        + " \"loadAverageBefore\": %.2f, \"loadAverageAfter\": %.2f,\n",
                env.date(),
                env.java(),
                env.cpus(),
                env.arch(),
                env.loadBefore(),
                env.loadAfter()));
        j.append(String.format(
                Locale.ROOT,
                "  \"keys\": %d, \"replicationFactor\": %d, \"defaultVnodes\": %d,\n",
                options.keys(),
                RF,
                Ring.DEFAULT_VNODES));
        j.append("  \"spread\": [\n");
        join(
                j,
                spread,
                r -> String.format(
                        Locale.ROOT,
                        "{\"placement\": \"%s\", \"vnodes\": %d, \"naming\": \"%s\", \"keys\": \"%s\", \"nodes\": %d, "
                                + "\"primaries\": %s, \"rf3Copies\": %s}",
                        r.placement(),
                        r.vnodes(),
                        r.naming().label(),
                        r.keySet(),
                        r.nodes(),
                        spread(r.primaries()),
                        spread(r.rf3())));
        j.append("  ],\n  \"exactOwnershipOverNamespaces\": [\n");
        join(
                j,
                many,
                r -> String.format(
                        Locale.ROOT,
                        "{\"vnodes\": %d, \"clusters\": %d, \"primaries\": {\"medianSd\": %.5f, \"p95Max\": %.5f, "
                                + "\"worstMax\": %.5f, \"worstMin\": %.5f}, \"rf3Copies\": {\"medianSd\": %.5f, "
                                + "\"p95Max\": %.5f, \"worstMax\": %.5f, \"worstMin\": %.5f}}",
                        r.vnodes(),
                        r.clusters(),
                        r.medianSd(),
                        r.p95Max(),
                        r.worstMax(),
                        r.worstMin(),
                        r.rf3MedianSd(),
                        r.rf3P95Max(),
                        r.rf3WorstMax(),
                        r.rf3WorstMin()));
        j.append("  ],\n  \"moves\": [\n");
        join(
                j,
                moves,
                m -> String.format(
                        Locale.ROOT,
                        "{\"placement\": \"%s\", \"vnodes\": %d, \"from\": %d, \"to\": %d, \"ideal\": %.6f, "
                                + "\"primariesMoved\": %.6f, \"primariesToOldNodes\": %d, \"copiesMoved\": %.6f, "
                                + "\"copiesToOldNodes\": %d, \"listsChanged\": %.6f}",
                        m.placement(),
                        m.vnodes(),
                        m.from(),
                        m.to(),
                        m.ideal(),
                        m.primariesMoved(),
                        m.primariesToOldNodes(),
                        m.copiesMoved(),
                        m.copiesToOldNodes(),
                        m.listsChanged()));
        j.append("  ],\n  \"ringCost\": [\n");
        join(
                j,
                costs,
                c -> String.format(
                        Locale.ROOT,
                        "{\"vnodes\": %d, \"nodes\": %d, \"approxBytes\": %d, \"buildMs\": %.3f, \"lookupRf3Ns\": %.2f}",
                        c.vnodes(),
                        c.nodes(),
                        c.bytes(),
                        c.buildMs(),
                        c.lookupNs()));
        j.append("  ],\n  \"lookupNs\": [\n");
        join(
                j,
                lookups,
                l -> String.format(
                        Locale.ROOT,
                        "{\"nodes\": %d, \"keyHash\": %.2f, \"ringPrimary\": %.2f, \"ringRf3Indexes\": %.2f, "
                                + "\"ringRf3List\": %.2f, \"rendezvousPrimary\": %.2f, \"rendezvousRf3\": %.2f}",
                        l.nodes(),
                        l.hashNs(),
                        l.ringPrimaryNs(),
                        l.ringIndexesNs(),
                        l.ringListNs(),
                        l.rendezvousPrimaryNs(),
                        l.rendezvousIndexesNs()));
        j.append("  ],\n").append(RackSpread.json(racks)).append("\n}\n");
        return j.toString();
    }

    private static String spread(Spread s) {
        return String.format(Locale.ROOT, "{\"min\": %.5f, \"max\": %.5f, \"sd\": %.5f}", s.min(), s.max(), s.sd());
    }

    private static <T> void join(StringBuilder j, List<T> rows, Function<T, String> format) {
        for (int i = 0; i < rows.size(); i++) {
            j.append("    ").append(format.apply(rows.get(i))).append(i + 1 < rows.size() ? ",\n" : "\n");
        }
    }
}
