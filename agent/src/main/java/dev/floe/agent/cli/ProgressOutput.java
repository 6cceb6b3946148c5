package dev.floe.agent.cli;

import java.io.PrintStream;

/**
 * Where {@link Progress} writes: on a terminal, a status line redrawn in place between plain lines;
 * elsewhere plain lines only.
 */
final class ProgressOutput {
    private final PrintStream out;
    private final boolean terminal;
    /** How wide the status line drawn last is; 0 when none is on screen. */
    private int drawn;

    ProgressOutput(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    boolean terminal() {
        return terminal;
    }

    /** A plain line, after clearing the status line. */
    void line(String text) {
        clear();
        out.println(text);
        out.flush();
    }

    /** Draws {@code status} over the status line on screen (terminal only). */
    void redraw(String status) {
        out.print("\r" + status + " ".repeat(Math.max(0, drawn - status.length())));
        out.flush();
        drawn = status.length();
    }

    /** Removes the status line from the screen. */
    void clear() {
        if (terminal && drawn > 0) {
            out.print("\r" + " ".repeat(drawn) + "\r");
            drawn = 0;
        }
    }

    void flush() {
        out.flush();
    }
}
