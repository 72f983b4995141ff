# plots/style.gp: a kernel's colour and point type, the same in every
# picture so a reader learns them once. Every script loads it (draw.sh
# passes its path as 'style'). A kernel beyond the lab's three (a branch,
# make bench KERNELS=...) gets the fallback, never a colour of theirs.
kcol(k) = k eq 'baseline' ? '#7f7f7f' : k eq 'patched' ? '#1f77b4' : \
	k eq 'upstream' ? '#d62728' : '#2ca02c'
# filled; kptopen(k) is the same shape hollow, for a second series of one kernel
kpt(k) = k eq 'baseline' ? 9 : k eq 'patched' ? 7 : k eq 'upstream' ? 5 : 13
kptopen(k) = kpt(k) - 1
# a column title's kernel: "patched restricted", "patched: check" -> patched
kname(t) = strstrt(word(t, 1), ':') ? word(t, 1)[1:strstrt(word(t, 1), ':') - 1] : word(t, 1)
# the unrestricted ring's bar is its kernel's colour, lighter; baseline
# has no restricted ring to tell it from
kfill(t) = strstrt(t, 'unrestricted') && kname(t) ne 'baseline' ? 0.35 : 0.85
# the colour as a number, for 'lc rgb variable' (a bar per row, any kernel)
kcolnum(k) = ('0x'.kcol(k)[2:]) + 0
