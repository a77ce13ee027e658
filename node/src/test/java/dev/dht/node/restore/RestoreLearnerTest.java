package dev.dht.node.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.restore.RestoreLearner.Action;
import dev.dht.node.restore.RestoreLearner.Local;
import dev.dht.node.restore.RestoreLearner.Report;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a member waiting for a restore serves, finishes by itself, or waits: no member serves before all loaded. */
class RestoreLearnerTest {
    private static final List<String> OTHERS = List.of("b", "c");

    private static Map.Entry<Action, String> decide(Local mine, Map<String, Report> reports) {
        return RestoreLearner.decide(mine, OTHERS, reports);
    }

    @Test
    void aMemberThatLoadedServesOnlyOnceEveryOtherMemberHasLoaded() {
        Local loaded = new Local("r1", "loaded");
        assertThat(decide(loaded, Map.of("b", new Report("r1", "loaded", false))))
                .as("c has not answered")
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
        assertThat(decide(
                        loaded,
                        Map.of("b", new Report("r1", "loaded", false), "c", new Report("r1", "loading", false))))
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
        assertThat(decide(
                        loaded, Map.of("b", new Report("r1", "loaded", false), "c", new Report("r0", "loaded", false))))
                .as("another restore")
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
        assertThat(decide(loaded, Map.of("b", new Report("r1", "loaded", false), "c", new Report("r1", "done", true))))
                .isEqualTo(Map.entry(Action.SERVE, "r1"));
        assertThat(decide(
                        loaded, Map.of("b", new Report("r1", "loaded", false), "c", new Report("r1", "loaded", false))))
                .isEqualTo(Map.entry(Action.SERVE, "r1"));
    }

    @Test
    void aMemberStillLoadingWaitsEvenWhenTheOthersServe() {
        assertThat(decide(
                        new Local("r1", "loading"),
                        Map.of("b", new Report("r1", "done", true), "c", new Report("r1", "done", true))))
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
    }

    @Test
    void aMemberThatMissedTheFinishCallFinishesWhenTheOthersDo() {
        Local streamed = new Local("r1", "streamed");
        assertThat(decide(streamed, Map.of("b", new Report("r1", "streamed", false))))
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
        assertThat(decide(streamed, Map.of("b", new Report("r1", "loading", false))))
                .isEqualTo(Map.entry(Action.FINISH, "r1"));
        assertThat(decide(streamed, Map.of("b", new Report("r1", "done", true))))
                .isEqualTo(Map.entry(Action.FINISH, "r1"));
        assertThat(decide(new Local("r1", "restoring"), Map.of("b", new Report("r1", "loading", false))))
                .as("still sending its share")
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
    }

    @Test
    void aMemberWithoutARestoreServesWhenAnotherServesAfterOne() {
        assertThat(decide(new Local(null, "idle"), Map.of("b", new Report("r1", "done", true))))
                .isEqualTo(Map.entry(Action.SERVE, "r1"));
        assertThat(decide(new Local(null, "idle"), Map.of("b", new Report("r1", "loaded", false))))
                .isEqualTo(Map.entry(Action.NOTHING, ""));
        assertThat(decide(new Local("r2", "restoring"), Map.of("b", new Report("r1", "done", true))))
                .as("with a restore of its own it waits for that one")
                .isEqualTo(Map.entry(Action.NOTHING, "r1"));
    }
}
