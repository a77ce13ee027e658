package dev.dht.node.backup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of a schedule's backups a prune deletes (pure). Complete backups are ranked newest first by start point:
 * the first {@code keepLast} stay, unless older than {@code maxAge}; the newest complete backup always stays (a
 * schedule that stopped running must not age its last backup away). An incomplete backup (no manifest) is deleted
 * unless it is protected (running). CloudNativePG's and TiDB's retention bugs were prunes that never ran or deleted
 * nothing; this one is unit-tested and reports what it deleted.
 */
public final class Retention {
    private Retention() {}

    /**
     * @param complete   start points of the complete candidates, by id
     * @param incomplete ids of candidates with no manifest
     * @param protect    ids never deleted (backups in progress)
     * @param keepLast   complete backups kept at most (at least 1)
     * @param maxAge     complete backups older than this are deleted (null: no age limit)
     * @param now        ms since the epoch
     */
    public static List<String> toDelete(
            Map<String, Long> complete,
            Set<String> incomplete,
            Set<String> protect,
            int keepLast,
            Duration maxAge,
            long now) {
        List<Map.Entry<String, Long>> ranked = new ArrayList<>(complete.entrySet());
        ranked.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ranked.size(); i++) {
            String id = ranked.get(i).getKey();
            boolean tooMany = i >= Math.max(1, keepLast);
            boolean tooOld = i > 0 && maxAge != null && now - ranked.get(i).getValue() > maxAge.toMillis();
            if ((tooMany || tooOld) && !protect.contains(id)) {
                out.add(id);
            }
        }
        for (String id : incomplete) {
            if (!protect.contains(id) && !complete.containsKey(id)) {
                out.add(id);
            }
        }
        return out;
    }
}
