package dev.dht.node.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The member RPC's chunked bodies (the range stream): whole chunks out, however the bytes arrive. */
class ChunkedDecoderTest {
    private static final String HEAD = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Dht-Clock: 9\r\n\r\n";
    private static final String BODY = "3\r\nabc\r\n10;ext=1\r\n0123456789abcdef\r\n1 \r\nz\r\n0\r\n\r\n";

    /** Feeds head and body in pieces of the given size, as the range reader's socket might deliver them. */
    private static List<String> feed(String text, int piece) throws IOException {
        byte[] all = text.getBytes(StandardCharsets.ISO_8859_1);
        ResponseHead head = new ResponseHead();
        ChunkedDecoder chunks = new ChunkedDecoder(1024);
        ByteBuffer in = ByteBuffer.allocate(256).flip();
        List<String> out = new ArrayList<>();
        boolean inBody = false;
        for (int i = 0; i < all.length && !chunks.finished(); i += piece) {
            in.compact().put(all, i, Math.min(piece, all.length - i)).flip();
            if (!inBody && !(inBody = head.parse(in))) {
                continue;
            }
            assertThat(head.chunked()).isTrue();
            assertThat(head.clock()).isEqualTo(9);
            for (byte[] c = chunks.next(in); c != null; c = chunks.next(in)) {
                out.add(new String(c, StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(chunks.finished()).as("the last chunk was read").isTrue();
        return out;
    }

    @Test
    void wholeChunksComeOutWhateverTheFragmentation() throws IOException {
        for (int piece : new int[] {1, 2, 5, 13, 64, 1000}) {
            assertThat(feed(HEAD + BODY, piece)).as("piece %d", piece).containsExactly("abc", "0123456789abcdef", "z");
        }
    }

    @Test
    void badSizesAndMissingLineEndsAreErrors() {
        assertThatThrownBy(() -> feed(HEAD + "x\r\n", 100)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> feed(HEAD + "3\r\nabcd\r\n", 100)).hasMessageContaining("CRLF");
        assertThatThrownBy(() -> feed(HEAD + "401\r\n", 100))
                .as("bigger than the decoder takes")
                .hasMessageContaining("chunk size");
    }
}
