# bench/lib.sh: sourced by the scripts that run ringbench in a guest (make
# bench, make check, make trace): vm/lib.sh, and ringbench's ring helpers.
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

# ring_kinds CMD...: the rings to measure with ringbench CMD: "0 1", or
# "0" on a kernel without restrictions (ringbench exits 77 there)
ring_kinds() {
	"$@" -w setup -r 1 -n 1 -W 0 >/dev/null 2>&1
	if [ $? = 77 ]; then echo 0; else echo "0 1"; fi
}

# ring_order REP RINGS: RINGS in repetition REP's order, reversed every
# other repetition so neither ring always runs first
ring_order() {
	if [ $(($1 % 2)) = 0 ]; then
		tr ' ' '\n' <<<"$2" | tac | tr '\n' ' '
	else
		echo "$2"
	fi
}

# selected WORD LIST: WORD is in the space-separated LIST, or LIST is empty
selected() {
	[ -z "$2" ] && return 0
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}
