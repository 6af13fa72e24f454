/* Randomized host tests of the VMA layer (part of the host_vma suite):
 *   - mmap/munmap/mprotect/madvise at random in a window of pages, held
 *     against a page-by-page model of Linux's semantics (flags, present
 *     pages, errnos, the canonical VMA count: one VMA per run of equal
 *     flags and anon_vma), with allocation failures injected into every operation
 *     and, in other steps, sysctl_max_map_count lowered to about map_count
 *     (a split refused, Linux's split_vma): mmap and munmap must then change
 *     nothing, mprotect and madvise must leave the VMAs before the failing
 *     one changed and the rest as they were (as Linux's loops do), and
 *     nothing may leak; merges with the VMA before the range, the one after
 *     it and both must each have happened, for new ranges (mmap) and for
 *     changed ones (mprotect, madvise);
 *   - the gap search (top-down, the bottom-up fallback, MAP_32BIT, hints)
 *     against a brute-force walk over the gaps;
 *   - tens of thousands of VMAs, to see the tree stay right at scale.
 * Every step ends with the full invariant check (check_mm). */
#include "tests/host/vma_test.h"

#include <string.h>

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static unsigned long rnd(unsigned long n) { return (unsigned long)(rng() % n); }

#define W 0x20000000ul /* the window */
#define NPAGES 96

static unsigned long model[NPAGES]; /* vm_flags of each page, 0: unmapped */
static bool model_present[NPAGES];
static long live_objects_before; /* stub_live_objects at the start */
static long committed_before;    /* stub_committed at the start */

static const unsigned long prots[] = { PROT_NONE, PROT_READ, RW, PROT_READ | PROT_EXEC };

static unsigned long prot_to_vm(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

static bool model_has_hole(unsigned long s, unsigned long e)
{
	for (unsigned long i = s; i < e; i++)
		if (!model[i])
			return true;
	return false;
}

/* mmap's flags (accountable_mapping: private writable memory without
 * MAP_NORESERVE gets VM_ACCOUNT). */
static unsigned long mmap_flags(unsigned long prot, bool noreserve)
{
	unsigned long f = prot_to_vm(prot) | VM_MAY;
	if (noreserve)
		f |= VM_NORESERVE;
	else if (prot & PROT_WRITE)
		f |= VM_ACCOUNT;
	return f;
}

/* mprotect_fixup's flags: memory becoming writable for the first time is
 * charged; memory losing write access loses the charge if its VMA has no
 * anon_vma (had nothing written yet). Which VMAs have one is taken from
 * the kernel before each operation: the merges that move anon_vmas
 * around are held to Linux's rules by the directed cases and check_mm. */
static unsigned long mprotect_flags(unsigned long old, unsigned long prot, bool anon_vma)
{
	unsigned long f = (old & ~VM_ACCESS_FLAGS) | prot_to_vm(prot);
	if (f == old)
		return f;
	if (f & VM_WRITE) {
		if (!(old & (VM_ACCOUNT | VM_WRITE | VM_SHARED | VM_NORESERVE)))
			f |= VM_ACCOUNT;
	} else if ((old & VM_ACCOUNT) && !anon_vma) {
		f &= ~VM_ACCOUNT;
	}
	return f;
}

/* The anon_vma of the VMA holding addr, or NULL. */
static struct anon_vma *anon_vma_at(unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr);
	return v && v->vm_start <= addr ? v->anon_vma : NULL;
}

static struct anon_vma *old_anon[NPAGES]; /* each page's before the operation */

static unsigned long madvise_flags(unsigned long old, int advice)
{
	switch (advice) {
	case MADV_HUGEPAGE:
		return (old & ~VM_NOHUGEPAGE) | VM_HUGEPAGE;
	case MADV_NOHUGEPAGE:
		return (old & ~VM_HUGEPAGE) | VM_NOHUGEPAGE;
	case MADV_RANDOM:
		return (old & ~VM_SEQ_READ) | VM_RAND_READ;
	case MADV_NORMAL:
		return old & ~(VM_RAND_READ | VM_SEQ_READ);
	case MADV_DONTFORK:
		return old | VM_DONTCOPY;
	default:
		return old;
	}
}

static bool compare_with_model(struct ktest *t)
{
	if (!check_mm(t, mm))
		return false;
	int runs = 0;
	unsigned long pages = 0;
	for (unsigned long i = 0; i < NPAGES; i++) {
		if (flags_at(W + P(i)) != model[i] ||
		    stub_page_present(W + P(i)) != model_present[i]) {
			ktest_fail(t, __FILE__, __LINE__,
				   "page %lu: flags %#lx present %d, the model says %#lx and %d", i,
				   flags_at(W + P(i)), stub_page_present(W + P(i)), model[i],
				   model_present[i]);
			return false;
		}
		pages += model[i] != 0;
		runs += model[i] && (i == 0 || model[i - 1] != model[i] ||
				     anon_vma_at(W + P(i - 1)) != anon_vma_at(W + P(i)));
	}
	if (!KTEST_EXPECT_EQ(t, mm->map_count, runs) || !KTEST_EXPECT_EQ(t, mm->total_vm, pages))
		return false;
	/* The commit charge is exactly the VM_ACCOUNT pages (mm/util.h). */
	long accounted = 0;
	for (unsigned long i = 0; i < NPAGES; i++)
		accounted += (model[i] & VM_ACCOUNT) != 0;
	if (!KTEST_EXPECT_EQ(t, stub_committed - committed_before, accounted))
		return false;
	/* Nothing leaked: the VMAs, their anon_vmas and the chains linking
	 * them (one per VMA with an anon_vma) are the only objects allocated. */
	long chained = 0;
	for (struct vm_area_struct *v = find_vma(mm, 0); v; v = v->vm_next)
		chained += v->anon_vma != NULL;
	if (!KTEST_EXPECT_EQ(t, stub_live_objects - live_objects_before,
			     mm->map_count + (long)mm_nr_anon_vmas(mm) + chained))
		return false;
	return true;
}

/* An mprotect or madvise that failed part-way (an injected allocation
 * failure while splitting a VMA): Linux's loops over the VMAs stop there,
 * the VMAs before the failing one changed, that one and the rest as they
 * were. want[] holds the flags of a full success (old ones where nothing
 * changes). Finds where the kernel stopped, checks that it is the start of
 * the range or of a VMA of the old layout (one VMA per run of equal flags)
 * with every page before it changed and every page from it unchanged, and
 * takes that outcome into the model. */
static bool take_partial_outcome(struct ktest *t, unsigned long s, unsigned long e,
				 const unsigned long *want)
{
	unsigned long p = s;
	while (p < e && (model[p] == want[p] || flags_at(W + P(p)) == want[p]))
		p++;
	/* A failure happens only in a VMA that changes: it stays old. */
	if (!KTEST_EXPECT_LT(t, p, e))
		return false;
	if (p > s && model[p - 1] == model[p] && old_anon[p - 1] == old_anon[p]) {
		ktest_fail(t, __FILE__, __LINE__, "stopped at page %lu, inside an old VMA", p);
		return false;
	}
	for (unsigned long i = p; i < e; i++)
		if (flags_at(W + P(i)) != model[i]) {
			ktest_fail(t, __FILE__, __LINE__,
				   "page %lu: flags %#lx after a failure at page %lu, was %#lx", i,
				   flags_at(W + P(i)), p, model[i]);
			return false;
		}
	for (unsigned long i = s; i < p; i++)
		model[i] = want[i];
	return true;
}

/* The VMA holding addr, or NULL. */
static struct vm_area_struct *vma_at(unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr);
	return v && v->vm_start <= addr ? v : NULL;
}

/* Which merges an operation on pages [s, e) made: 1 when the VMA before
 * the range ended at page s before and reaches past it now (it took the
 * range's head over), 2 when the VMA after it started at page e and
 * starts before it now; 3 both. Bounds, not pointers: a freed VMA's
 * memory may come back as another. */
struct boundaries {
	bool left, right;
};

static struct boundaries boundaries_before(unsigned long s, unsigned long e)
{
	struct vm_area_struct *l = s ? vma_at(W + P(s - 1)) : NULL, *r = e < NPAGES ? vma_at(W + P(e)) : NULL;
	return (struct boundaries){ l && l->vm_end == W + P(s), r && r->vm_start == W + P(e) };
}

static int merges_made(struct boundaries b, unsigned long s, unsigned long e)
{
	struct vm_area_struct *l = s ? vma_at(W + P(s - 1)) : NULL, *r = e < NPAGES ? vma_at(W + P(e)) : NULL;
	return (b.left && l && l->vm_end > W + P(s)) | (b.right && r && r->vm_start < W + P(e)) << 1;
}

static void random_ops_against_a_page_model(struct ktest *t)
{
	rng_state = 0xdeadbeefcafef00dull;
	memset(model, 0, sizeof(model));
	memset(model_present, 0, sizeof(model_present));
	live_objects_before = stub_live_objects;
	committed_before = stub_committed;
	unsigned long counts[6] = { 0 }, failures[6] = { 0 }, limited[6] = { 0 };
	/* [new range or changed range][merged left, right, both] */
	unsigned long merges[2][4] = { { 0 } };
	static unsigned long want_flags[NPAGES];
	for (int step = 0; step < 20000; step++) {
		unsigned long s = rnd(NPAGES), n = 1 + rnd(min(16ul, NPAGES - s)), e = s + n;
		unsigned long op = rnd(6);
		/* Sometimes a whole VMA, the only range that can merge on both
		 * sides (a random one almost never is one). */
		struct vm_area_struct *whole = vma_at(W + P(s));
		if (rnd(3) == 0 && whole && whole->vm_start >= W && whole->vm_end <= W + P(NPAGES)) {
			s = (whole->vm_start - W) >> PAGE_SHIFT;
			e = (whole->vm_end - W) >> PAGE_SHIFT;
			n = e - s;
		}
		long got, want = 0;
		bool inject = rnd(8) == 0, failed;
		/* Otherwise, sometimes: the map count limit at the count (one
		 * below, at, one above), so that splits are refused. */
		bool limit = !inject && rnd(6) == 0;
		counts[op]++;
		/* The n-th allocation fails; it failed if the count ran out. */
		kmalloc_fail_in = inject ? 1 + (int)rnd(3) : 0;
		if (limit)
			sysctl_max_map_count = max(1, mm->map_count - 1 + (int)rnd(3));
		for (unsigned long i = 0; i < NPAGES; i++)
			old_anon[i] = anon_vma_at(W + P(i));
		struct boundaries before = boundaries_before(s, e);
		if (op == 0 || op == 1) { /* MAP_FIXED, maybe populated */
			unsigned long prot = prots[rnd(ARRAY_SIZE(prots))];
			bool populate = rnd(2), noreserve = rnd(4) == 0;
			got = MMAP(W + P(s), P(n), prot,
				   ANON | MAP_FIXED | (populate ? MAP_POPULATE : 0) |
					   (noreserve ? MAP_NORESERVE : 0));
			/* Over the limit: do_mmap's check, or munmap's of a VMA
			 * cut in three; either way before any change. */
			failed = (inject && kmalloc_fail_in == 0) || (limit && got == -ENOMEM);
			/* The failure may hit the anon_vma of a write populate,
			 * after the mapping was made: mm_populate ignores it
			 * (as Linux's), the pages stay unpopulated. */
			bool populate_failed = failed && populate && (prot & PROT_WRITE) &&
					       got == (long)(W + P(s));
			if (failed && !populate_failed) {
				want = -ENOMEM; /* nothing changed */
			} else {
				want = (long)(W + P(s));
				for (unsigned long i = s; i < e; i++) {
					model[i] = mmap_flags(prot, noreserve);
					model_present[i] = populate && !populate_failed;
				}
			}
		} else if (op == 2) {
			got = do_munmap(mm, W + P(s), P(n));
			failed = (inject && kmalloc_fail_in == 0) || (limit && got == -ENOMEM);
			if (failed) {
				want = -ENOMEM; /* nothing changed */
			} else {
				for (unsigned long i = s; i < e; i++)
					model[i] = 0, model_present[i] = false;
			}
		} else if (op == 3) {
			unsigned long prot = prots[rnd(ARRAY_SIZE(prots))];
			got = do_mprotect(mm, W + P(s), P(n), prot);
			failed = inject && kmalloc_fail_in == 0;
			/* From start, page by page until a hole. */
			unsigned long i = s;
			memcpy(want_flags, model, sizeof(model));
			for (; i < e && model[i]; i++)
				want_flags[i] = mprotect_flags(model[i], prot, old_anon[i] != NULL);
			/* A refused split shows as a page left unchanged (its
			 * -ENOMEM is also a hole's). */
			for (unsigned long j = s; limit && !failed && j < i; j++)
				failed = flags_at(W + P(j)) != want_flags[j];
			want = i < e || failed ? -ENOMEM : 0;
			if (failed) {
				if (!take_partial_outcome(t, s, i, want_flags))
					goto fail;
			} else {
				memcpy(model, want_flags, sizeof(model));
			}
		} else {
			static const int advice[] = { MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_RANDOM,
						      MADV_NORMAL, MADV_DONTNEED, MADV_DONTFORK };
			int a = advice[rnd(ARRAY_SIZE(advice))];
			got = do_madvise(mm, W + P(s), P(n), a);
			failed = (inject && kmalloc_fail_in == 0) || (limit && got == -EAGAIN);
			memcpy(want_flags, model, sizeof(model));
			for (unsigned long i = s; i < e; i++)
				if (model[i])
					want_flags[i] = madvise_flags(model[i], a);
			/* madvise_vma_behavior turns a failed split's -ENOMEM
			 * into -EAGAIN, which wins over a hole's -ENOMEM. */
			want = failed ? -EAGAIN : model_has_hole(s, e) ? -ENOMEM : 0;
			if (failed) {
				if (!take_partial_outcome(t, s, e, want_flags))
					goto fail;
			} else {
				memcpy(model, want_flags, sizeof(model));
				if (a == MADV_DONTNEED)
					for (unsigned long i = s; i < e; i++)
						model_present[i] = false;
			}
		}
		failures[op] += failed && inject;
		limited[op] += failed && limit;
		kmalloc_fail_in = 0;
		sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;
		if (!KTEST_EXPECT_EQ(t, got, want) || !compare_with_model(t))
			goto fail;
		int merged = merges_made(before, s, e);
		if (merged && !failed)
			merges[op >= 3][merged]++;
		continue;
fail:
		kmalloc_fail_in = 0;
		sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;
		ktest_diag(t, "step %d: operation %lu on pages [%lu, %lu)", step, op, s, e);
		return;
	}
	ktest_diag(t, "20000 operations (%lu mmap, %lu munmap, %lu mprotect, %lu madvise); "
		   "injected allocation failures: %lu mmap, %lu munmap, %lu mprotect, %lu madvise",
		   counts[0] + counts[1], counts[2], counts[3], counts[4] + counts[5],
		   failures[0] + failures[1], failures[2], failures[3], failures[4] + failures[5]);
	/* Each kind of failure must have been exercised. */
	KTEST_EXPECT_GT(t, failures[0] + failures[1], 0);
	KTEST_EXPECT_GT(t, failures[2], 0);
	KTEST_EXPECT_GT(t, failures[3], 0);
	KTEST_EXPECT_GT(t, failures[4] + failures[5], 0);
	ktest_diag(t, "refused by max_map_count: %lu mmap, %lu munmap, %lu mprotect, %lu madvise",
		   limited[0] + limited[1], limited[2], limited[3], limited[4] + limited[5]);
	KTEST_EXPECT_GT(t, limited[0] + limited[1], 0);
	KTEST_EXPECT_GT(t, limited[2], 0);
	KTEST_EXPECT_GT(t, limited[3], 0);
	KTEST_EXPECT_GT(t, limited[4] + limited[5], 0);
	ktest_diag(t, "merges with the VMA before, after, both: new ranges %lu %lu %lu, "
		   "changed ranges %lu %lu %lu", merges[0][1], merges[0][2], merges[0][3],
		   merges[1][1], merges[1][2], merges[1][3]);
	for (int kind = 0; kind < 2; kind++)
		for (int side = 1; side <= 3; side++)
			KTEST_EXPECT_GT(t, merges[kind][side], 0);
}

/* The gaps of mm, lowest first, as [start, end) pairs; returns how many. */
static int list_gaps(unsigned long (*gaps)[2], int max)
{
	int n = 0;
	unsigned long prev_end = 0;
	for (struct vm_area_struct *v = find_vma(mm, 0); v && n < max; v = v->vm_next) {
		if (v->vm_start > prev_end)
			gaps[n][0] = prev_end, gaps[n][1] = v->vm_start, n++;
		prev_end = v->vm_end;
	}
	if (prev_end < TASK_SIZE && n < max)
		gaps[n][0] = prev_end, gaps[n][1] = TASK_SIZE, n++;
	return n;
}

static long lowest_fit(unsigned long (*gaps)[2], int n, unsigned long len, unsigned long lo,
		       unsigned long hi)
{
	for (int i = 0; i < n; i++) {
		unsigned long s = max(gaps[i][0], lo), e = min(gaps[i][1], hi);
		if (e > s && e - s >= len)
			return (long)s;
	}
	return -ENOMEM;
}

/* What Linux's search returns, found the slow way. */
static long brute_force(unsigned long hint, unsigned long len, unsigned long flags)
{
	static unsigned long gaps[4096][2];
	int n = list_gaps(gaps, 4096);
	unsigned long up = (hint + PAGE_SIZE - 1) & PAGE_MASK;
	long found;
	if (flags & MAP_32BIT) {
		if (up && up <= 0x80000000ul - len && !find_vma_intersection(mm, up, up + len))
			found = (long)up;
		else
			found = lowest_fit(gaps, n, len, 0x40000000ul, 0x80000000ul);
		return found >= 0 && found < (long)mmap_min_addr ? -EPERM : found;
	}
	hint &= PAGE_MASK;
	/* Linux 6.12's THP alignment: no hint, a length in whole 2 MiB: the
	 * highest gap for len + 2 MiB, then up to a 2 MiB boundary inside it
	 * (or its top, when the padded start is aligned already). */
	if (!hint && !(len & (PMD_SIZE - 1))) {
		long padded = -ENOMEM;
		for (int i = 0; i < n; i++) {
			unsigned long s = max(gaps[i][0], mmap_min_addr), e = min(gaps[i][1], mm->mmap_base);
			if (e > s && e - s >= len + PMD_SIZE)
				padded = (long)(e - len - PMD_SIZE);
		}
		if (padded >= 0) {
			unsigned long off_sub = (0 - (unsigned long)padded) & (PMD_SIZE - 1);
			unsigned long a = (unsigned long)padded + (off_sub ? off_sub : PMD_SIZE);
			return a < mmap_min_addr ? -EPERM : (long)a;
		}
	}
	if (hint && hint <= TASK_SIZE - len && !find_vma_intersection(mm, hint, hint + len))
		return hint < mmap_min_addr ? -EPERM : (long)hint;
	long best = -ENOMEM;
	for (int i = 0; i < n; i++) {
		unsigned long s = max(gaps[i][0], mmap_min_addr), e = min(gaps[i][1], mm->mmap_base);
		if (e > s && e - s >= len)
			best = (long)(e - len);
	}
	if (best >= 0)
		return best;
	if (up && up <= TASK_SIZE - len && !find_vma_intersection(mm, up, up + len))
		return up < mmap_min_addr ? -EPERM : (long)up;
	return lowest_fit(gaps, n, len, TASK_UNMAPPED_BASE, TASK_SIZE);
}

static void gap_search_against_brute_force(struct ktest *t)
{
	rng_state = 0x0123456789abcdefull;
	mm->mmap_base = 3ul << 30;
	unsigned long queries = 0, fallbacks = 0;
	for (int step = 0; step < 3000; step++) {
		/* Change the layout: mostly add, sometimes remove. */
		unsigned long addr = mmap_min_addr + P(rnd((4ul << 30) >> PAGE_SHIFT));
		unsigned long pages = 1 + rnd(rnd(4) == 0 ? 1 << 16 : 64);
		if (rnd(3))
			map_fixed(t, addr, pages, prots[rnd(ARRAY_SIZE(prots))], 0);
		else
			KTEST_ASSERT_EQ(t, do_munmap(mm, addr, P(pages)), 0);
		if (step % 100 == 0 && !check_mm(t, mm))
			return;
		for (int q = 0; q < 8; q++) {
			unsigned long len = P(1 + rnd(1ul << rnd(20)));
			unsigned long flags = rnd(8) == 0 ? MAP_32BIT : 0;
			unsigned long hint = rnd(4) == 0 ? rnd(4ul << 30) : 0;
			long want = brute_force(hint, len, flags);
			long got = (long)get_unmapped_area(mm, hint, len, flags);
			queries++;
			fallbacks += got >= (long)TASK_UNMAPPED_BASE && !hint;
			if (!KTEST_EXPECT_EQ(t, got, want)) {
				ktest_diag(t, "step %d: len %#lx flags %#lx hint %#lx, %d VMAs", step, len,
					   flags, hint, mm->map_count);
				return;
			}
		}
	}
	check_mm(t, mm);
	ktest_diag(t, "%lu searches over up to %d VMAs, %lu bottom-up fallbacks", queries,
		   mm->map_count, fallbacks);
	/* A full window below mmap_base sends every search bottom-up. */
	map_fixed(t, mmap_min_addr, (mm->mmap_base - mmap_min_addr) >> PAGE_SHIFT, PROT_NONE, 0);
	KTEST_EXPECT_EQ(t, (long)get_unmapped_area(mm, 0, P(1), 0), brute_force(0, P(1), 0));
	KTEST_EXPECT_GE(t, (long)get_unmapped_area(mm, 0, P(1), 0), (long)TASK_UNMAPPED_BASE);
	test_mm_free(mm);
	mm = NULL;
	KTEST_EXPECT_EQ(t, stub_live_objects, 0);
}

static void tens_of_thousands_of_vmas(struct ktest *t)
{
	enum { N = 30000 };
	rng_state = 42;
	/* Every other page mapped, with alternating rights: no merges. */
	for (unsigned long i = 0; i < N; i++)
		map_fixed(t, W + P(2 * i), 1, i % 2 ? PROT_READ : RW, 0);
	KTEST_ASSERT_EQ(t, mm->map_count, N);
	KTEST_ASSERT_TRUE(t, check_mm(t, mm));
	/* Fill the holes: VMAs merge pairwise where the rights agree. */
	for (unsigned long i = 0; i < N; i++)
		map_fixed(t, W + P(2 * i + 1), 1, RW, 0);
	/* R R ... at pages 4k + 2, runs of RW between them: N + 1 VMAs. */
	KTEST_EXPECT_EQ(t, mm->map_count, N + 1);
	for (int step = 0; step < 20000; step++) {
		unsigned long s = rnd(2 * N), n = 1 + rnd(8);
		switch (rnd(3)) {
		case 0:
			do_munmap(mm, W + P(s), P(n));
			break;
		case 1:
			do_mprotect(mm, W + P(s), P(n), prots[rnd(ARRAY_SIZE(prots))]);
			break;
		default:
			do_madvise(mm, W + P(s), P(n), rnd(2) ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		}
		if (step % 5000 == 0 && !check_mm(t, mm))
			return;
	}
	check_mm(t, mm);
	ktest_diag(t, "%d VMAs at the end", mm->map_count);
	/* The search still finds its gaps. */
	KTEST_EXPECT_EQ(t, (long)get_unmapped_area(mm, 0, P(1), 0), brute_force(0, P(1), 0));
	KTEST_EXPECT_EQ(t, (long)get_unmapped_area(mm, 0, P(3), MAP_32BIT), brute_force(0, P(3), MAP_32BIT));
	test_mm_free(mm);
	mm = NULL;
	KTEST_EXPECT_EQ(t, stub_live_objects, 0);
}

const struct ktest_case vma_random_cases[] = {
	KTEST_CASE(random_ops_against_a_page_model),
	KTEST_CASE(gap_search_against_brute_force),
	KTEST_CASE(tens_of_thousands_of_vmas),
};
const size_t nr_vma_random_cases = ARRAY_SIZE(vma_random_cases);
