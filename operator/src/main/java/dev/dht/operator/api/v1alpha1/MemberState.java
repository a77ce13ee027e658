package dev.dht.operator.api.v1alpha1;

/**
 * A member's place in the topology's life cycle. Draining is reserved for scale-down with data
 * movement (a later issue): the operator does not set it yet.
 */
public enum MemberState { Joining, Up, Draining }
