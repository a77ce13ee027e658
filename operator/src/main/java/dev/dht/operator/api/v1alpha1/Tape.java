package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The load tapes (k6 scenarios in k6/ of the load-runner image), named as the runner names them. */
public enum Tape {
    /** PUT of new keys. */
    @JsonProperty("put-unique")
    PUT_UNIQUE("put-unique"),
    /** PUT, 10% of them overwriting existing keys. */
    @JsonProperty("put-overwrite")
    PUT_OVERWRITE("put-overwrite"),
    /** GET of pre-filled keys, uniformly. */
    @JsonProperty("get-uniform")
    GET_UNIFORM("get-uniform"),
    /** GET skewed toward the most recently written keys. */
    @JsonProperty("get-recent")
    GET_RECENT("get-recent"),
    /** 50% PUT of new keys, 50% uniform GET. */
    @JsonProperty("mixed")
    MIXED("mixed");

    private final String id;

    Tape(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }
}
