package dev.dht.bench.ring;

import dev.dht.node.ring.Ring;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Section 6 of the spread report: placement with racks (docs/placement.md, "Racks"). For racks of equal and unequal
 * size, each member's exact share of the key space at RF 3 over many name sets (the operator names a rack's pods
 * {@code <cluster>-<rack>-<i>}), against the same members placed without racks; and what racks cost a ring's build
 * and a lookup.
 */
final class RackSpread {
    static final int RF = 3;
    static final int NAME_SETS = 50;
    /** Racks of these sizes; 1+1+1+1+1+1 (one member per rack) places exactly as no racks. */
    static final List<int[]> LAYOUTS = List.of(
            new int[] {2, 2, 2},
            new int[] {3, 3, 3},
            new int[] {1, 3, 3},
            new int[] {2, 2, 4},
            new int[] {3, 3, 4},
            new int[] {2, 3, 4},
            new int[] {3, 3},
            new int[] {1, 3},
            new int[] {2, 2, 2, 2},
            new int[] {1, 2, 2, 3},
            new int[] {1, 1, 1, 1, 1, 1});

    static final List<int[]> COST_LAYOUTS = List.of(new int[] {3, 3, 4}, new int[] {33, 33, 34});

    /**
     * @param copiesPerRack  copies of a key each rack holds, on average over the name sets (exact per set)
     * @param meanShare      a member's share of the keys, by rack, averaged over its members and the name sets
     * @param lightest       the lightest member's share over all name sets, relative to its rack's meanShare
     * @param heaviest       the heaviest member's share over all name sets, relative to its rack's meanShare
     * @param heaviestShare  the heaviest member's share of the keys, over all name sets
     * @param blindHeaviest  the same members without racks: the heaviest member's share, over all name sets
     */
    record Row(
            int[] sizes,
            double[] copiesPerRack,
            double[] meanShare,
            double lightest,
            double heaviest,
            double heaviestShare,
            double blindHeaviest) {
        int members() {
            return Arrays.stream(sizes).sum();
        }

        String label() {
            return Arrays.stream(sizes).mapToObj(String::valueOf).collect(Collectors.joining("+"));
        }
    }

    record CostRow(int[] sizes, double buildMs, double blindBuildMs, double lookupNs, double blindLookupNs) {
        int members() {
            return Arrays.stream(sizes).sum();
        }
    }

    record Result(List<Row> rows, List<CostRow> costs) {}

    private RackSpread() {}

    static Result measure(byte[][] lookupKeys, int roundMs) {
        List<Row> rows = new ArrayList<>();
        for (int[] sizes : LAYOUTS) {
            rows.add(measure(sizes));
        }
        List<CostRow> costs = new ArrayList<>();
        for (int[] sizes : COST_LAYOUTS) {
            costs.add(cost(sizes, lookupKeys, roundMs));
        }
        return new Result(rows, costs);
    }

    /** Members of cluster "dht" in namespace ns, racks zone-a, zone-b, ...: url -> rack. */
    static Map<String, String> members(int[] sizes, int ns) {
        Map<String, String> racks = new HashMap<>();
        for (int r = 0; r < sizes.length; r++) {
            String rack = "zone-" + (char) ('a' + r);
            for (int i = 0; i < sizes[r]; i++) {
                racks.put(
                        "http://dht-" + rack + "-" + i + ".dht-headless.team-" + ns + ".svc.cluster.local:8080", rack);
            }
        }
        return racks;
    }

    private static Row measure(int[] sizes) {
        int racks = sizes.length;
        double[] copies = new double[racks];
        List<double[]> shares = new ArrayList<>(); // per name set: member share, and its rack index (by ring index)
        List<int[]> rackOf = new ArrayList<>();
        double blindHeaviest = 0;
        for (int ns = 0; ns < NAME_SETS; ns++) {
            Map<String, String> members = members(sizes, ns);
            Ring ring = new Ring(members.keySet(), members);
            double[] share = ring.ownership(RF);
            int[] rack = new int[ring.size()];
            for (int i = 0; i < ring.size(); i++) {
                rack[i] = ring.rackOf(i).charAt(5) - 'a';
                copies[rack[i]] += share[i] / NAME_SETS;
            }
            shares.add(share);
            rackOf.add(rack);
            blindHeaviest = Math.max(
                    blindHeaviest,
                    Arrays.stream(new Ring(members.keySet()).ownership(RF))
                            .max()
                            .orElseThrow());
        }
        double[] meanShare = new double[racks];
        for (int r = 0; r < racks; r++) {
            meanShare[r] = copies[r] / sizes[r];
        }
        double lightest = Double.MAX_VALUE;
        double heaviest = 0;
        double heaviestShare = 0;
        for (int s = 0; s < shares.size(); s++) {
            for (int i = 0; i < shares.get(s).length; i++) {
                double relative = shares.get(s)[i] / meanShare[rackOf.get(s)[i]];
                lightest = Math.min(lightest, relative);
                heaviest = Math.max(heaviest, relative);
                heaviestShare = Math.max(heaviestShare, shares.get(s)[i]);
            }
        }
        return new Row(sizes, copies, meanShare, lightest, heaviest, heaviestShare, blindHeaviest);
    }

    private static CostRow cost(int[] sizes, byte[][] keys, int roundMs) {
        Map<String, String> members = members(sizes, 0);
        Ring racked = new Ring(members.keySet(), members);
        Ring blind = new Ring(members.keySet());
        int[] out = new int[RF];
        return new CostRow(
                sizes,
                Timing.medianBuildMs(() -> new Ring(members.keySet(), members)),
                Timing.medianBuildMs(() -> new Ring(members.keySet())),
                Timing.nsPerOp(() -> SpreadMeasures.ringIndexes(racked, keys, out), keys.length, roundMs),
                Timing.nsPerOp(() -> SpreadMeasures.ringIndexes(blind, keys, out), keys.length, roundMs));
    }

    static void markdown(Result result, StringBuilder md) {
        line(md, "## 6. Racks: the load per member at RF %d", RF);
        line(md, "");
        line(
                md,
                "Each member's exact share of the key space (arc lengths, no sampling) at RF %d with %d vnodes, over"
                        + " %d name sets (`http://dht-zone-a-0.dht-headless.team-<n>.svc.cluster.local:8080`, ...: one"
                        + " StatefulSet per rack). A share of 1 means the member holds a copy of every key. *Copies per rack*:"
                        + " of each key, on average (exactly 1 each with as many racks as copies). *Spread in a rack*: the"
                        + " lightest and heaviest member against its rack's mean share, worst of all name sets. *Heaviest*:"
                        + " the largest share of any member, and the same members placed without racks.",
                RF,
                Ring.DEFAULT_VNODES,
                NAME_SETS);
        line(md, "");
        line(
                md,
                "| racks (members each) | members | copies per rack | share per member, by rack | spread in a rack |"
                        + " heaviest member | without racks |");
        line(md, "|---|---:|---|---|---:|---:|---:|");
        for (Row r : result.rows()) {
            line(
                    md,
                    "| %s | %d | %s | %s | %s … %s | %.3f | %.3f |",
                    r.label(),
                    r.members(),
                    slash(r.copiesPerRack()),
                    slash(r.meanShare()),
                    dev(r.lightest()),
                    dev(r.heaviest()),
                    r.heaviestShare(),
                    r.blindHeaviest());
        }
        line(md, "");
        line(
                md,
                "Build and lookup with racks (replica indexes at RF %d, ns per key including its hash; the fastest"
                        + " of %d rounds):",
                RF,
                Timing.ROUNDS);
        line(md, "");
        line(md, "| racks | members | build, racks | build, none | lookup, racks | lookup, none |");
        line(md, "|---|---:|---:|---:|---:|---:|");
        for (CostRow c : result.costs()) {
            line(
                    md,
                    "| %s | %d | %.2f ms | %.2f ms | %.1f ns | %.1f ns |",
                    Arrays.stream(c.sizes()).mapToObj(String::valueOf).collect(Collectors.joining("+")),
                    c.members(),
                    c.buildMs(),
                    c.blindBuildMs(),
                    c.lookupNs(),
                    c.blindLookupNs());
        }
    }

    static String json(Result result) {
        StringBuilder j = new StringBuilder();
        j.append("  \"racks\": [\n");
        List<Row> rows = result.rows();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            j.append(String.format(
                    Locale.ROOT,
                    "    {\"sizes\": %s, \"copiesPerRack\": %s, \"meanShare\": %s, "
                            + "\"lightestInRack\": %.5f, \"heaviestInRack\": %.5f, \"heaviestShare\": %.5f, "
                            + "\"withoutRacksHeaviestShare\": %.5f}%s\n",
                    Arrays.toString(r.sizes()),
                    list(r.copiesPerRack()),
                    list(r.meanShare()),
                    r.lightest(),
                    r.heaviest(),
                    r.heaviestShare(),
                    r.blindHeaviest(),
                    i + 1 < rows.size() ? "," : ""));
        }
        j.append("  ],\n  \"rackCost\": [\n");
        List<CostRow> costs = result.costs();
        for (int i = 0; i < costs.size(); i++) {
            CostRow c = costs.get(i);
            j.append(String.format(
                    Locale.ROOT,
                    "    {\"sizes\": %s, \"buildMs\": %.3f, \"withoutRacksBuildMs\": %.3f,"
                            + " \"lookupRf3Ns\": %.2f, \"withoutRacksLookupRf3Ns\": %.2f}%s\n",
                    Arrays.toString(c.sizes()),
                    c.buildMs(),
                    c.blindBuildMs(),
                    c.lookupNs(),
                    c.blindLookupNs(),
                    i + 1 < costs.size() ? "," : ""));
        }
        j.append("  ]");
        return j.toString();
    }

    private static String list(double[] values) {
        return Arrays.stream(values)
                .mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                .collect(Collectors.joining(", ", "[", "]"));
    }

    private static String slash(double[] values) {
        return Arrays.stream(values)
                .mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                .collect(Collectors.joining(" / "));
    }

    private static String dev(double relative) {
        return String.format(Locale.ROOT, "%+.1f%%", (relative - 1) * 100);
    }

    private static void line(StringBuilder md, String format, Object... args) {
        md.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
