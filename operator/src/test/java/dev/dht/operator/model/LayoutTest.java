package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Where a scale or a drain ends, and who leaves first: the racks' rules. */
class LayoutTest {
    static final List<String> ABC = List.of("a", "b", "c");

    static Layout of(int... counts) {
        return Layout.of(ABC, counts);
    }

    static Stream<Arguments> targets() {
        return Stream.of(
                Arguments.of(
                        "a new cluster: an even split, the first racks take the remainder",
                        of(0, 0, 0),
                        7,
                        Set.of(),
                        of(3, 2, 2)),
                Arguments.of("scale-up fills the racks with the fewest first", of(3, 2, 2), 9, Set.of(), of(3, 3, 3)),
                Arguments.of("an appended rack takes the new members", of(3, 3, 0), 8, Set.of(), of(3, 3, 2)),
                Arguments.of(
                        "scale-down empties the fullest racks first, the later of equals",
                        of(3, 3, 3),
                        7,
                        Set.of(),
                        of(3, 2, 2)),
                Arguments.of("scale-down of unequal racks evens them", of(4, 4, 1), 7, Set.of(), of(3, 3, 1)),
                Arguments.of("a drain keeps the total: the other racks grow", of(3, 3, 3), 9, Set.of("c"), of(5, 4, 0)),
                Arguments.of("a drain with a smaller total", of(3, 3, 3), 6, Set.of("c"), of(3, 3, 0)),
                Arguments.of("nothing to do", of(3, 3, 1), 7, Set.of(), of(3, 3, 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void target(String name, Layout from, int total, Set<String> drained, Layout expected) {
        assertThat(from.target(total, drained)).isEqualTo(expected);
    }

    /** One member at a time from the rack furthest above its share: the path a scale-down takes. */
    static List<Layout> walk(Layout from, int total, Set<String> drained) {
        var target = from.target(total, drained);
        var path = new ArrayList<Layout>();
        var at = from;
        for (var next = at.nextToLeave(target, drained); next.isPresent(); next = at.nextToLeave(target, drained)) {
            at = at.with(next.get(), at.get(next.get()) - 1);
            path.add(at);
        }
        return path;
    }

    @Test
    void scaleDownLeavesTheRacksBalancedAtEveryStep() {
        assertThat(walk(of(3, 3, 3), 6, Set.of())).containsExactly(of(3, 3, 2), of(3, 2, 2), of(2, 2, 2));
    }

    @Test
    void aDrainedRackLeavesFirstOneMemberAtATime() {
        assertThat(walk(of(3, 3, 3), 4, Set.of("c")))
                .containsExactly(of(3, 3, 2), of(3, 3, 1), of(3, 3, 0), of(3, 2, 0), of(2, 2, 0));
    }

    @Test
    void membersAreEachRacksFirstOrdinalsInRackOrder() {
        assertThat(of(2, 0, 1).members()).containsExactly(new Member("a", 0), new Member("a", 1), new Member("c", 0));
        assertThat(of(2, 0, 1).spread(Set.of())).isEqualTo(2);
        assertThat(of(2, 0, 1).spread(Set.of("b"))).isEqualTo(1);
    }
}
