package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class FactorHoldTest {
    @Test
    void theSpecsFactorAppliesWhenNoScaleRunsOrNothingRunsYet() {
        assertThat(FactorHold.decide(2, OptionalInt.of(3), false))
                .isEqualTo(new FactorHold.Result(2, java.util.Optional.empty()));
        assertThat(FactorHold.decide(2, OptionalInt.empty(), true).factor()).isEqualTo(2);
        assertThat(FactorHold.decide(3, OptionalInt.of(3), true).refusal()).isEmpty();
    }

    @Test
    void aNewFactorIsHeldWhileAScaleRunsAndTheRefusalSaysWhatToDo() {
        var held = FactorHold.decide(2, OptionalInt.of(3), true);
        assertThat(held.factor()).isEqualTo(3);
        assertThat(held.refusal()).hasValueSatisfying(r -> {
            assertThat(r.reason()).isEqualTo(FactorHold.REASON);
            assertThat(r.message())
                    .contains(
                            "replication factor 2 (spec.replication.factor, default 3) is held back while the cluster scales")
                    .contains("set the factor back to 3");
        });
    }
}
