// Package untrusted renders strings an agent chose (paths, argv, process
// names, hostnames) so that a report shows them as data: one function per
// target, Terminal for text a terminal or a CI log interprets, Markdown
// for GitHub-flavoured markdown text (step summaries, PR bodies), and
// MarkdownCode and MarkdownCellCode for an inline code span outside and
// inside a table. It needs nothing and reads
// nothing; every function is total.
package untrusted
