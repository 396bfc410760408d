package dev.skillforge.server.webpage;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;

import java.util.List;

/**
 * {@code web get URL [FROM]}: the page's readable text as Markdown, headed by its title and address, from
 * character {@code FROM} on (the tool entry keeps the first 2,000 characters of a result, so a long page is
 * read in steps). Off unless the operator allows it ({@code FORGE_ALLOW_WEB=1}); the page's address and title
 * are also a {@code source} event.
 */
public final class WebCommands implements CommandRunner, AutoCloseable {

    static final String OFF = "web get is turned off on this server (the operator can allow it with FORGE_ALLOW_WEB=1).";
    static final String USAGE = "usage: web get URL [FROM]   (FROM: the character to start at, for the rest of a long page)";

    private final WebFetcher fetcher;

    public WebCommands(WebSettings settings) {
        this.fetcher = settings.enabled() ? new WebFetcher(settings) : null;
    }


    @Override
    public CommandResult run(ShellCommand command, Cancellation cancellation) {
        if (fetcher == null) {
            return CommandResult.failed(OFF, 1);
        }
        String[] words = command.firstLine().split("\\s+");
        if (words.length < 3 || words.length > 4 || !words[1].equals("get")) {
            return CommandResult.failed(USAGE, 2);
        }
        int from = 0;
        if (words.length == 4) {
            try {
                from = Integer.parseInt(words[3]);
            } catch (NumberFormatException e) {
                return CommandResult.failed(USAGE, 2);
            }
        }
        try {
            WebFetcher.Page page = fetcher.fetch(words[2], cancellation);
            String text = page.markdown();
            if (from < 0 || from > text.length()) {
                return CommandResult.failed("The page has " + text.length() + " characters; FROM must be from 0 to that", 2);
            }
            String head = (page.title().isEmpty() ? "" : "# " + page.title() + "\n") + "Source: " + page.url() + "\n"
                    + (from > 0 ? "(from character " + from + " of " + text.length() + ")\n" : "(" + text.length() + " characters)\n") + "\n";
            return new CommandResult(head + text.substring(from), 0, List.of(new CommandResult.Source(page.url(), page.title())));
        } catch (WebFetcher.FetchException e) {
            return CommandResult.failed("web get: " + e.getMessage(), 1);
        }
    }

    @Override
    public void close() {
        if (fetcher != null) {
            fetcher.close();
        }
    }
}
