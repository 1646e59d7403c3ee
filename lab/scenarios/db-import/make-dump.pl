#!/usr/bin/perl
# Writes a deterministic, MediaWiki-like SQL dump (mysqldump layout: CREATE
# TABLE, then extended INSERTs between DISABLE/ENABLE KEYS) to stdout, about
# TARGET_BYTES of SQL, and the row counts per table to COUNTS_FILE. Same
# arguments, same bytes: the generator is a 32-bit xorshift, no perl rand().
# Usage: make-dump.pl TARGET_BYTES COUNTS_FILE
use strict;
use warnings;

my ($target, $counts_file) = @ARGV;
die "usage: make-dump.pl TARGET_BYTES COUNTS_FILE\n" unless defined $counts_file && $target =~ /^\d+$/;

my $state = 2463534242;
sub rnd {    # xorshift32: the next value in [0, $_[0])
  $state ^= ($state << 13) & 0xffffffff;
  $state ^= $state >> 17;
  $state ^= ($state << 5) & 0xffffffff;
  return $state % $_[0];
}

# A vocabulary of pronounceable words: text compresses like prose (about 3:1).
my @syllables = qw(ka lo mi ne ru sa te vi do pa an er in on us ta ri ma ko le);
my @words = map { join '', map { $syllables[rnd(scalar @syllables)] } 1 .. (1 + rnd(4)) } 1 .. 4000;
sub sentence { join(' ', map { $words[rnd(scalar @words)] } 1 .. (4 + rnd(14))) . '.' }
sub esc { my $s = shift; $s =~ s/\\/\\\\/g; $s =~ s/'/\\'/g; return $s }

my $written = 0;
sub out { print @_; $written += length($_) for @_ }

out "-- layerlab db-import dump (MediaWiki-like), deterministic\n";
out "/*!40101 SET NAMES utf8mb4 */;\nSET FOREIGN_KEY_CHECKS=0;\nSET UNIQUE_CHECKS=0;\n";
out <<'SQL';
DROP TABLE IF EXISTS `page`;
CREATE TABLE `page` (
  `page_id` int unsigned NOT NULL AUTO_INCREMENT,
  `page_namespace` int NOT NULL,
  `page_title` varbinary(255) NOT NULL,
  `page_is_redirect` tinyint unsigned NOT NULL DEFAULT 0,
  `page_touched` binary(14) NOT NULL,
  `page_latest` int unsigned NOT NULL,
  `page_len` int unsigned NOT NULL,
  PRIMARY KEY (`page_id`),
  UNIQUE KEY `page_name_title` (`page_namespace`,`page_title`),
  KEY `page_len` (`page_len`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
DROP TABLE IF EXISTS `revision`;
CREATE TABLE `revision` (
  `rev_id` int unsigned NOT NULL AUTO_INCREMENT,
  `rev_page` int unsigned NOT NULL,
  `rev_comment` varbinary(767) NOT NULL,
  `rev_actor` bigint unsigned NOT NULL,
  `rev_timestamp` binary(14) NOT NULL,
  `rev_len` int unsigned NOT NULL,
  `rev_sha1` varbinary(32) NOT NULL,
  PRIMARY KEY (`rev_id`),
  KEY `rev_page_timestamp` (`rev_page`,`rev_timestamp`),
  KEY `rev_timestamp` (`rev_timestamp`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
DROP TABLE IF EXISTS `text`;
CREATE TABLE `text` (
  `old_id` int unsigned NOT NULL AUTO_INCREMENT,
  `old_text` mediumblob NOT NULL,
  `old_flags` tinyblob NOT NULL,
  PRIMARY KEY (`old_id`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
SQL

my %rows = (page => 0, revision => 0, text => 0);
my (@page, @revision, @text);
my $batch_bytes = 0;
sub flush_batch {
  for ([page => \@page], [revision => \@revision], [text => \@text]) {
    my ($table, $list) = @$_;
    next unless @$list;
    out "/*!40000 ALTER TABLE `$table` DISABLE KEYS */;\n";
    out "INSERT INTO `$table` VALUES ", join(',', @$list), ";\n";
    out "/*!40000 ALTER TABLE `$table` ENABLE KEYS */;\n";
    @$list = ();
  }
  $batch_bytes = 0;
}

my ($page_id, $rev_id) = (0, 0);
while ($written + $batch_bytes < $target) {
  $page_id++;
  my $title = join('_', map { ucfirst $words[rnd(scalar @words)] } 1 .. (1 + rnd(3))) . "_$page_id";
  my $revisions = 1 + rnd(3);
  my ($len, $latest) = (0, 0);
  for (1 .. $revisions) {
    $rev_id++;
    my $body = join("\n\n", map { join(' ', map { sentence() } 1 .. (2 + rnd(6))) } 1 .. (1 + rnd(5)));
    $len = length $body;
    $latest = $rev_id;
    my $ts = sprintf('2016%02d%02d%02d%02d%02d', 1 + rnd(12), 1 + rnd(28), rnd(24), rnd(60), rnd(60));
    my $sha = join '', map { ('0' .. '9', 'a' .. 'z')[rnd(36)] } 1 .. 31;
    push @text, sprintf("(%d,'%s','utf-8')", $rev_id, esc($body));
    push @revision, sprintf("(%d,%d,'%s',%d,'%s',%d,'%s')", $rev_id, $page_id, esc(sentence()), 1 + rnd(50), $ts, $len, $sha);
    $batch_bytes += $len + 200;
    $rows{text}++;
    $rows{revision}++;
  }
  push @page, sprintf("(%d,%d,'%s',0,'20160921100357',%d,%d)", $page_id, rnd(4) ? 0 : 2, esc($title), $latest, $len);
  $rows{page}++;
  flush_batch() if $batch_bytes > 900_000;    # extended INSERTs of about 1 MB, like mysqldump's default
}
flush_batch();
out "SET FOREIGN_KEY_CHECKS=1;\nSET UNIQUE_CHECKS=1;\n";

open my $fh, '>', $counts_file or die "cannot write $counts_file: $!\n";
print $fh "$_\t$rows{$_}\n" for sort keys %rows;
close $fh or die "cannot write $counts_file: $!\n";
