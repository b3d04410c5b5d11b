#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# rename-config.pl: the text rewrites of rename-config.sh (which see).
#   rename-config.pl --file PATH --devmem 0|1 --dummy-devmem 0|1 < old > new
#   rename-config.pl --msg --devmem 0|1 < message > message
# --devmem 1: this commit's tree has the HMM swap entry (the option
# splits into HMM_DEVICE_MIRROR + HMM_DEVMEM); 0: only the mirror exists.
# --dummy-devmem 1: hmm_dummy.c registers device memory.
# Deterministic and idempotent: text already renamed is left as it is.
# Dies on a CONFIG_HMM site or Kconfig help text it does not know, so that
# a changed series is looked at rather than renamed by guess.
use strict;
use warnings;
use Getopt::Long;
use Text::Wrap qw(wrap $columns $huge);

my ($file, $msg, $devmem, $dummy_devmem) = ('', 0, 0, 0);
GetOptions('file=s' => \$file, 'msg' => \$msg, 'devmem=i' => \$devmem,
	   'dummy-devmem=i' => \$dummy_devmem) or die "usage\n";
local $/;
my $t = <STDIN>;
$t = '' unless defined $t;
$huge = 'overflow';

# The symbol a plain CONFIG_HMM stands for in a file of this tree.
my $sym = $devmem ? 'HMM_DEVMEM' : 'HMM_DEVICE_MIRROR';
my $new = '';

sub indent { my $c = shift; return ("\t" x int($c / 8)) . (' ' x ($c % 8)); }
sub width { my $s = shift; 1 while $s =~ s/\t+/' ' x (length($&) * 8 - length($`) % 8)/e; return length $s; }

# Greedy fill of WORDS after FIRST, then CONT, within 80 columns.
sub fill {
	my ($first, $cont, @w) = @_;
	my @out;
	my $line = $first;
	my $empty = 1;
	for my $w (@w) {
		if (!$empty && width("$line $w") > 80) {
			push @out, $line;
			$line = $cont . $w;
		} else {
			$line .= ($empty ? '' : ' ') . $w;
		}
		$empty = 0;
	}
	push @out, $line;
	return @out;
}

# Lines the rename made longer than 80 columns: carry their last words to
# the next line of the same paragraph (comment or document text), as far as
# needed, or make a block of a one-line comment.
sub reflow {
	my ($o, $n) = @_;
	my @out;
	for (my $i = 0; $i < @$n; $i++) {
		my $l = $n->[$i];
		if ($l eq $o->[$i] || width($l) <= 80) {
			push @out, $l;
			next;
		}
		if ($l =~ m{^(\s*)/\* (.*) \*/$}) {
			push @out, "$1/*", fill("$1 * ", "$1 * ", split(' ', $2)), "$1 */";
			next;
		}
		my ($p) = $l =~ /^(\s*(?:\*\s+)?)\S/ or die "$file: cannot refill: $l\n";
		my $c = $p;
		if ($i + 1 < @$n && $p =~ /^(\s*\*)/) {
			my $star = $1;
			$c = $star . $1 if $n->[$i + 1] =~ /^\Q$star\E( +)\S/ && length($star . $1) >= length($p);
		}
		while (1) {
			my @carry;
			while (width($l) > 80) {
				$l =~ s/ (\S+)$// or die "$file: cannot refill: $l\n";
				unshift @carry, $1;
			}
			push @out, $l;
			last unless @carry;
			if ($i + 1 < @$n && $n->[$i + 1] eq $o->[$i + 1] &&
			    $n->[$i + 1] =~ /^\Q$c\E(\S.*)$/ && $1 !~ m{^(?:[-*] |\d+\. |\*/|/)}) {
				$i++;
				$l = $c . join(' ', @carry, $1);
			} else {
				$l = $c . join(' ', @carry);
			}
		}
	}
	return @out;
}

sub nobreak { my $s = shift; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }

# Kconfig help paragraph, wrapped as the rest of mm/Kconfig (tab + 2, <= 72).
sub help_par {
	local $columns = 79;
	return wrap("\t  ", "\t  ", nobreak(shift)) . "\n";
}

# A commit message paragraph: plain text or "- " items, wrapped at 72.
sub msg_par {
	my $p = shift;
	local $columns = 73;
	my @items = split /\n(?=- )/, $p;
	return join "\n", map {
		/^- / ? wrap('- ', '  ', nobreak(substr($_, 2))) : wrap('', '', nobreak($_))
	} @items;
}

# Kconfig text of the devmem half when the series has no paragraph for it yet.
my $MIGRATE_DEFAULT = 'Lets a device driver that mirrors processes ' .
	'(HMM_DEVICE_MIRROR) migrate private anonymous memory to its own ' .
	'device memory, which needs no struct page: the CPU page table then ' .
	'holds an HMM entry.';
my $MIRROR_COST = 'Cost: no hook is added to mm paths and no field to ' .
	'mm_struct, so processes that are not mirrored pay nothing. A ' .
	'mirrored process pays one interval notifier, and each mirror at ' .
	'most 8 bytes per mirrored page plus the table\'s directory pages.';
my $MIRROR_HIDDEN = 'No prompt, as HMM_MIRROR: a driver that mirrors selects it.';
my $SWAP_COST = 'Cost: the HMM entry takes one swap type: MAX_SWAPFILES ' .
	'drops by one (one swap device fewer can be enabled).';

sub kconfig_hmm {
	my ($attrs, $help) = @_;
	my @attr = grep { /\S/ } split /\n/, $attrs;
	my ($prompt) = grep { /^\tbool / } @attr;
	my ($dep) = grep { /^\tdepends on / } @attr;
	my @sel = grep { /^\tselect / } @attr;
	die "config HMM: unknown attribute lines\n"
		if !$prompt || !$dep || @attr != 2 + @sel;
	$dep =~ /^\tdepends on MMU( && 64BIT)?$/ or die "config HMM: $dep\n";
	die "config HMM: 64BIT and devmem disagree\n" if !!$1 != !!$devmem;
	my (%p, %raw);
	for my $par (split /\n[ \t]*\n/, $help) {
		next unless $par =~ /\S/;
		my $s = nobreak($par);
		my $k = $s =~ /^Heterogeneous Memory Management/ ? 'mirror' :
			$s =~ /^A driver can also migrate/ ? 'migrate' :
			$s =~ /^Cost:/ ? 'cost' :
			$s =~ /^Needed by the hmm_dummy test driver/ ? 'needed' :
			die "config HMM: unknown help paragraph: $s\n";
		$p{$k} = $s;
		($raw{$k} = $par) =~ s/\n*\z/\n/;
	}
	die "config HMM: help lacks a paragraph\n"
		unless $p{mirror} && $p{cost} && $p{needed};
	my $out = "config HMM_DEVICE_MIRROR\n\tbool\n\tdepends on MMU\n" .
		join('', map { "$_\n" } @sel) . "\thelp\n" . $raw{mirror} . "\n";
	if (!$devmem) {
		die "config HMM: migration text without 64BIT\n" if $p{migrate};
		return $out . $raw{cost} . "\n" . help_par($MIRROR_HIDDEN);
	}
	$out .= help_par($MIRROR_COST) . "\n" . help_par($MIRROR_HIDDEN) . "\n";
	my $mig = $p{migrate} // $MIGRATE_DEFAULT;
	$mig =~ s/^A driver can also migrate/Lets a device driver that mirrors processes (HMM_DEVICE_MIRROR) migrate/;
	my $cost = $p{cost};
	$cost =~ s/ ?A mirrored process pays one interval notifier, and each mirror at most 8 bytes per mirrored page plus the table's directory pages\.//
		or die "config HMM: the cost of a mirror is not where it was\n";
	$cost = $SWAP_COST if $cost !~ /swap/;
	return $out . "config HMM_DEVMEM\n" .
		"\tbool \"HMM: device memory without struct page\"\n" .
		"\tdepends on MMU && 64BIT\n\tselect HMM_DEVICE_MIRROR\n\thelp\n" .
		help_par($mig) . "\n" . help_par($cost) . "\n" . $raw{needed};
}

if ($msg) {
	# Sentences that said what the option does, in the patch that did it.
	my @par = split /\n\n/, $t, -1;
	for (@par) {
		my $o = $_;
		next if /^[A-Za-z-]+: / && !/CONFIG_HMM\b/;	# trailers
		s/\bCONFIG_HMM selects CONFIG_HMM_PT\./CONFIG_HMM_DEVICE_MIRROR selects CONFIG_HMM_PT. It has no prompt, as HMM_MIRROR: a driver that mirrors selects it, since there is no reason to turn it on without one./;
		s/\bHMM now\s+depends\s+on\s+64BIT:/The entry has its own option, CONFIG_HMM_DEVMEM, so that a kernel that only mirrors keeps every swap type; it selects CONFIG_HMM_DEVICE_MIRROR and depends on 64BIT:/;
		s/\bPoint the HMM Kconfig help\b/Point the HMM_DEVMEM Kconfig help/;
		s/\bCONFIG_HMM\b/CONFIG_$sym/g;
		$_ = msg_par($_) if $_ ne $o;
	}
	print join "\n\n", @par;
	exit 0;
}

if ($file eq 'mm/Kconfig') {
	$t =~ s/^config HMM\n((?:\t(?!help\n).*\n)+)\thelp\n((?:(?:\t  .*)?\n)*?)(?=\n*(?:config|menuconfig|menu|endmenu|if|endif|source|comment|choice)\b)/kconfig_hmm($1, $2)/me;
	$t =~ s/^\tdepends on KUNIT && HMM\n/\tdepends on KUNIT && MMU\n\tselect HMM_DEVICE_MIRROR\n/m;
} elsif ($file eq 'drivers/char/Kconfig') {
	my $d = $dummy_devmem ? 'HMM_DEVMEM' : 'MMU';
	$t =~ s/^(config HMM_DUMMY\n(?:\t.*\n)*?)\tdepends on HMM\n/$1\tdepends on $d\n\tselect HMM_DEVICE_MIRROR\n/m;
} elsif ($file eq 'mm/Makefile') {
	$t =~ s/^obj-\$\(CONFIG_HMM\) \+= hmm_mirror\.o hmm_migrate\.o\n/obj-\$(CONFIG_HMM_DEVICE_MIRROR) += hmm_mirror.o\nobj-\$(CONFIG_HMM_DEVMEM) += hmm_migrate.o\n/m;
	$t =~ s/^obj-\$\(CONFIG_HMM\) \+= hmm_mirror\.o\n/obj-\$(CONFIG_HMM_DEVICE_MIRROR) += hmm_mirror.o\n/m;
} elsif ($file eq 'mm/.kunitconfig' || $file eq 'tools/testing/selftests/mm/config') {
	# A fragment names what a test needs: the devmem option, or nothing
	# (the hidden mirror option comes with the test that selects it).
	$t =~ s/^CONFIG_HMM=y\n/$devmem ? "CONFIG_HMM_DEVMEM=y\n" : ''/me;
} elsif ($file eq 'tools/testing/selftests/mm/test_hmm_dummy.sh') {
	$t =~ s/^(\t*)echo "CONFIG_HMM=y"\n/$devmem ? "$1echo \"CONFIG_HMM_DEVMEM=y\"\n" : ''/me;
} elsif ($file eq 'mm/hmm_mirror_test.c') {
	# HMM_PFN_DEVMEM is 0 without CONFIG_HMM_DEVMEM: the case has nothing
	# to test then (the entry would be an ordinary page, which maps).
	$t =~ s/^(static void hmm_dma_test_devmem\(struct kunit \*test\)\n\{\n(?:\t.*;\n)*\n)(?!\tif \(!IS_ENABLED\(CONFIG_HMM_DEVMEM\)\))/$1\tif (!IS_ENABLED(CONFIG_HMM_DEVMEM))\n\t\tkunit_skip(test, "HMM_PFN_DEVMEM needs CONFIG_HMM_DEVMEM");\n\n/m;
} elsif ($file eq 'mm/internal.h') {
	# The mirror forgets ping-pong history that only a devmem migration
	# writes (mm/hmm_migrate.c): without HMM_DEVMEM there is none.
	$t =~ s/^void (hmm_pingpong_forget)\(struct xarray \*history, unsigned long start,\n\t+ unsigned long end\);\n(?!#else)/#ifdef CONFIG_HMM_DEVMEM\nvoid $1(struct xarray *history, unsigned long start,\n\t\t\t unsigned long end);\n#else\n\/\* Only a migration to device memory writes the history. \*\/\nstatic inline void $1(struct xarray *history,\n\t\t\t\t       unsigned long start, unsigned long end)\n{\n}\n#endif\n/m;
} elsif ($file eq 'drivers/gpu/drm/amd/amdgpu/Kconfig') {
	# Upstream's text (it names the option removed in 2019): not ours.
	print $t;
	exit 0;
}

# Every other CONFIG_HMM: the mirror's header and document name the mirror,
# everything else (swap entry, accounting, smaps, HMM_PFN_DEVMEM) devmem.
my $here = ($file =~ m{^(include/linux/hmm_mirror\.h|Documentation/mm/hmm_mirror\.rst)$})
	? 'HMM_DEVICE_MIRROR' : $sym;
my @o = split /\n/, $t, -1;
$t =~ s/\bCONFIG_HMM\b/CONFIG_$here/g;
$t =~ s/^(\t+)(HMM_PFN_DEVMEM = )(IS_ENABLED\(CONFIG_HMM_DEVMEM\) \?) (.+)$/"$1$2$3\n" . indent(width($1) + length($2)) . $4/me
	if width($t =~ /^(\t+HMM_PFN_DEVMEM = IS_ENABLED\(CONFIG_HMM_DEVMEM\) \?.*)$/m ? $1 : '') > 80;
my @n = split /\n/, $t, -1;
$t = join "\n", reflow(\@o, \@n) if @o == @n;
die "$file: HMM Kconfig site left: $1\n"
	if $t =~ /^(config HMM\n|.*(?:depends on|select)\b.*\bHMM\b(?!_).*|obj-\$\(CONFIG_HMM\).*)$/m;
print $t;
