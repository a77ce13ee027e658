package dev.dht.operator.backup;

import dev.dht.operator.nodeadmin.AdminAnswer;
import java.util.ArrayList;
import java.util.Map;

/**
 * The cluster's BackupStore condition from its members' backup status ({@code GET /v0/admin/backup}, its
 * {@code store}: each member probes the object store at start and again every minute while that fails, and every
 * backup says again). False as soon as one member reports the store unusable, with what it said (a wrong credential
 * shows here before any backup runs); True when every member that answered could use it; Unknown before any did.
 * Pure.
 *
 * @param status  True, False or Unknown
 * @param reason  the condition's reason
 * @param message the condition's message
 */
public record StoreView(String status, String reason, String message) {
    public static final String CONDITION = "BackupStore";

    /** @param reports the members' answers by pod name */
    public static StoreView of(Map<String, AdminAnswer> reports) {
        var failing = new ArrayList<String>();
        int usable = 0;
        for (var e : reports.entrySet()) {
            AdminAnswer r = e.getValue();
            if (r == null
                    || !r.answered()
                    || r.status() != 200
                    || !(r.json().get("store") instanceof Map<?, ?> store)) {
                continue;
            }
            String pod = e.getKey();
            if (Boolean.FALSE.equals(store.get("ok"))) {
                failing.add(pod + ": " + store.get("error"));
            } else if (Boolean.TRUE.equals(store.get("ok"))) {
                usable++;
            }
        }
        if (!failing.isEmpty()) {
            return new StoreView("False", "StoreNotUsable", String.join("; ", failing));
        }
        if (usable == 0) {
            return new StoreView("Unknown", "NoReports", "no member has reported on the object store yet");
        }
        return new StoreView(
                "True", "StoreUsable", usable + " members reached the object store with their" + " credentials");
    }
}
