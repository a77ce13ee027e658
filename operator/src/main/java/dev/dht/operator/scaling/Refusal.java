package dev.dht.operator.scaling;

/**
 * A spec change the operator does not apply (now), with what to do about it: shown as the Refused condition and a
 * Warning Event. The schema refuses what it can see (e.g. replicas below the replication factor); this is for what
 * only the operator sees (the cluster's state).
 *
 * @param reason  CamelCase, for the condition and the Event
 * @param message what is not applied, why, and what to do
 */
public record Refusal(String reason, String message) {}
