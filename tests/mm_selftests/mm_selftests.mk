# Linux's own mm selftests (tools/testing/selftests/mm of Debian's
# linux-source-6.12), built unmodified as static glibc programs with the
# flags of their Makefile, and run as KTAP suite "mm_selftests" on one
# machine of each kernel: mmlab's mm-selftests topology (its own ISO,
# build/mm-selftests.iso: the kernel and an archive of these programs
# with their "selftest" manifest; tests/mm_selftests_test.c) and Linux
# 6.1's linux-mm-selftests (build/linux/mm-selftests.cpio: the same
# archive, then /init; tools/linux/init.c).
# docs/mm_selftests.md has every program's result on both kernels.
# Included from the top-level Makefile (B, HOSTCC, Q, say) after
# tools/initramfs/initramfs.mk (make_iso's archive: program_archive) and
# tools/linux/linux.mk (LINUX_INIT_CPIO, cat_initrd).
#
#   MM_SELFTESTS        the programs run, in order (case mm_selftests.<name>)
#   MM_SELFTESTS_ISO    build/mm-selftests.iso
#   MM_SELFTESTS_INITRD build/linux/mm-selftests.cpio
#   make mm-selftests   builds both

MM_ST_B := $(B)/mm-selftests
MM_ST_TREE := $(MM_ST_B)/src/linux-source-6.12
MM_ST_DIR := $(MM_ST_TREE)/tools/testing/selftests/mm
MM_ST_STAMP := $(MM_ST_TREE)/.extracted
MM_ST_CONFIG := $(MM_ST_DIR)/local_config.h

# Every program of the Makefile's TEST_GEN_FILES for x86_64 that is a test
# (write_to_hugetlbfs is a helper of charge_reserved_hugetlb.sh, and the
# 32-bit protection_keys_32 and pkey_sighandler_tests_32 need -m32
# libraries and a 32-bit system-call entry: both left out).
MM_SELFTESTS := map_fixed_noreplace map_populate mremap_test mremap_dontunmap mlock2-tests \
	mlock-random-test madv_populate on-fault-limit map_hugetlb transhuge-stress \
	virtual_address_range va_high_addr_switch cow mkdirty soft-dirty pagemap_ioctl mseal_test \
	seal_elf mdwe_test droppable split_huge_page_test khugepaged khugepaged_shmem compaction_test migration \
	hugepage-mmap hugepage-mremap hugepage-shm hugepage-vmemmap hugetlb-madvise \
	hugetlb-read-hwpoison hugetlb-soft-offline hugetlb_fault_after_madv hugetlb_madv_vs_map \
	hugetlb_dio gup_test gup_longterm hmm-tests memfd_secret mrelease_test ksm_tests \
	ksm_functional_tests uffd-unit-tests uffd-stress protection_keys_64 pkey_sighandler_tests_64 \
	thuge-gen

# thuge-gen comes last: it resizes the hugetlb pool (to 0 when it ends),
# which the others find as the machine's command line made it.
# Arguments, as run_vmtests.sh gives them (one of its runs where it has
# several); transhuge-stress, which run_vmtests.sh does not run, loops
# until killed without -d.
MM_ST_ARGS_gup_test := -u
MM_ST_ARGS_uffd-stress := anon 20 16
MM_ST_ARGS_ksm_tests := -M -p 10
MM_ST_ARGS_transhuge-stress := -d 10
# The Makefile's per-program additions.
MM_ST_LIBS_mlock-random-test := -lcap
MM_ST_LIBS_memfd_secret := -lcap
MM_ST_LIBS_ksm_tests := -lnuma
MM_ST_LIBS_migration := -lnuma
MM_ST_LIBS_protection_keys_64 := -ldl
MM_ST_LIBS_pkey_sighandler_tests_64 := -ldl
MM_ST_CFLAGS_protection_keys_64 := -m64 -mxsave
MM_ST_CFLAGS_pkey_sighandler_tests_64 := -m64 -mxsave
MM_ST_EXTRA_uffd-stress := uffd-common.c
MM_ST_EXTRA_uffd-unit-tests := uffd-common.c
# 6.12's khugepaged.c uses KSFT_SKIP without including kselftest.h (it
# does not build from the Makefile either): the header is included from
# the command line, the source left as it is.
MM_ST_CFLAGS_khugepaged := -include ../kselftest.h
# khugepaged again with run_vmtests.sh's "all:shmem": both contexts on a
# memfd (the run without arguments is anonymous memory only). A program
# of its own name, so that it is a case of its own.
MM_ST_SRC_khugepaged_shmem := khugepaged
MM_ST_CFLAGS_khugepaged_shmem := $(MM_ST_CFLAGS_khugepaged)
MM_ST_ARGS_khugepaged_shmem := all:shmem
mm_st_src = $(if $(MM_ST_SRC_$(1)),$(MM_ST_SRC_$(1)),$(patsubst %_64,%,$(1))).c

# What mmlab lacks for the programs that fail on it (docs/mm_selftests.md):
# on mmlab such a program's failure is reported skipped with this reason,
# so that make test stays green while the features are missing; one that
# passes is reported passed, with a line saying its entry can go. Plain
# words only, no % or quotes: the text rides in printf's format
# (write_if_changed).
MM_ST_LACKS_va_high_addr_switch := 5-level paging: mmap above 2^47
MM_ST_LACKS_ksm_functional_tests := KSM
MM_ST_LACKS_migration := the time its six 20 s cases take (120 s, past the 60 s limit; all pass with mm_selftests.timeout=170)
MM_ST_LACKS_hmm-tests := the test_hmm device
MM_ST_LACKS_droppable := MAP_DROPPABLE of Linux 6.11
MM_ST_LACKS_split_huge_page_test := debugfs split_huge_pages
MM_ST_LACKS_khugepaged := more than 60 s on a loaded host: collapse_compound_extreme makes 512 THPs one by one (all its cases pass with mm_selftests.timeout=300)
MM_ST_LACKS_hugepage-mremap := userfaultfd
MM_ST_LACKS_hugetlb-read-hwpoison := MADV_HWPOISON (its read regression test passes)
MM_ST_LACKS_hugetlb-soft-offline := vm.enable_soft_offline of Linux 6.11
MM_ST_LACKS_hugepage-vmemmap := /proc/kpageflags
MM_ST_LACKS_memfd_secret := ptrace (its file IO, vmsplice and process_vm_read cases pass)
MM_ST_LACKS_uffd-stress := userfaultfd
MM_ST_LACKS_pkey_sighandler_tests_64 := protection keys: CR4.PKE

# The Makefile's CFLAGS and LDLIBS (KHDR_INCLUDES, the tree's installed
# uapi headers, is the host's linux-libc-dev instead: the tree is not
# configured), -no-pie as it adds on x86_64, -static, -s (their symbols
# are not needed on the ISO).
MM_ST_CFLAGS := -Wall -O2 -I $(CURDIR)/$(MM_ST_TREE) -isystem $(CURDIR)/$(MM_ST_TREE)/tools/include/uapi \
	-U_FORTIFY_SOURCE -no-pie -static -s
MM_ST_LDLIBS := -lrt -lpthread -lm
MM_ST_BINS := $(patsubst %,$(MM_ST_B)/bin/%,$(MM_SELFTESTS))
MM_SELFTESTS_ISO := $(B)/mm-selftests.iso
MM_SELFTESTS_INITRD := $(B)/linux/mm-selftests.cpio

$(MM_ST_STAMP): tests/mm_selftests/extract.sh
	$(Q)MM_SELFTESTS_DEST=$(MM_ST_B)/src tests/mm_selftests/extract.sh >/dev/null
	@touch $@

# As their Makefile makes it (liburing: none here, so cow and gup_longterm
# skip their io_uring cases).
$(MM_ST_CONFIG): $(MM_ST_STAMP)
	$(Q)cd $(MM_ST_DIR) && /bin/sh ./check_config.sh $(HOSTCC)

# The sources every program links (their Makefile names them beside each
# program's own: $(TEST_GEN_FILES): vm_util.c thp_settings.c) are
# compiled once, with the same flags, rather than once per program.
MM_ST_SHARED := vm_util thp_settings uffd-common
mm_st_obj = $(MM_ST_B)/obj/$(1).o
define mm_st_shared
$(call mm_st_obj,$(1)): $(MM_ST_STAMP) $(MM_ST_CONFIG)
	@mkdir -p $$(dir $$@)
	$$(say) CC-SELFTEST $$@
	$$(Q)cd $(MM_ST_DIR) && $(HOSTCC) $(MM_ST_CFLAGS) -c $(1).c -o $(CURDIR)/$$@ \
		> $(CURDIR)/$$@.log 2>&1 || { cat $(CURDIR)/$$@.log; exit 1; }
endef
$(foreach o,$(MM_ST_SHARED),$(eval $(call mm_st_shared,$(o))))
mm_st_objs = $(foreach o,vm_util thp_settings $(basename $(MM_ST_EXTRA_$(1))),$(call mm_st_obj,$(o)))

define mm_st_build
$(MM_ST_B)/bin/$(1): $(MM_ST_STAMP) $(MM_ST_CONFIG) $(call mm_st_objs,$(1))
	@mkdir -p $$(dir $$@)
	$$(say) CC-SELFTEST $$@
	$$(Q)cd $(MM_ST_DIR) && $(HOSTCC) $(MM_ST_CFLAGS) $(MM_ST_CFLAGS_$(1)) $(call mm_st_src,$(1)) \
		$(addprefix $(CURDIR)/,$(call mm_st_objs,$(1))) $(MM_ST_LDLIBS) $(MM_ST_LIBS_$(1)) \
		-o $(CURDIR)/$$@ > $(CURDIR)/$$@.log 2>&1 || { cat $(CURDIR)/$$@.log; exit 1; }
endef
$(foreach p,$(MM_SELFTESTS),$(eval $(call mm_st_build,$(p))))

# The ISO is the default one's shape (the Makefile's make_iso): the kernel
# and one archive, here root.list, the programs in /bin and their manifest
# lines "selftest <name> [args] [:: what mmlab lacks]" (fs/programs.h,
# tests/mm_selftests_test.c), and no user programs; and BusyBox, whose
# /bin/sh, cat and grep the programs' popen and system calls run
# (compaction_test reads /proc/meminfo through "cat ... | grep").
MM_ST_MANIFEST := $(MM_ST_B)/programs
MM_ST_LIST := $(MM_ST_B)/initramfs.list
MM_ST_INITRAMFS := $(MM_ST_B)/initramfs.cpio
mm_st_manifest_lines = $(foreach p,$(MM_SELFTESTS),selftest $(p)$(if \
	$(MM_ST_ARGS_$(p)), $(MM_ST_ARGS_$(p)))$(if $(MM_ST_LACKS_$(p)), :: $(MM_ST_LACKS_$(p)))\n)
$(eval $(call program_archive,$(MM_ST_INITRAMFS),$(MM_ST_LIST),$(MM_ST_MANIFEST),mm_st_manifest_lines,$(MM_ST_BINS),$(BUSYBOX_LIST)))
$(MM_SELFTESTS_ISO): $(B)/kernel.elf boot/grub.cfg $(MM_ST_INITRAMFS)
	$(call make_iso,$(B)/kernel.elf,$(MM_ST_B)/iso,$(MM_ST_INITRAMFS))

# Linux's side: the same archive, then /init (tools/linux/linux.mk).
$(MM_SELFTESTS_INITRD): $(MM_ST_INITRAMFS) $(LINUX_INIT_CPIO)
	$(say) CPIO $@
	$(call cat_initrd,$^)

.PHONY: mm-selftests
#> mm-selftests   Linux's mm selftests, built for mmlab's mm-selftests machine and Linux's (docs/mm_selftests.md)
mm-selftests: $(MM_SELFTESTS_ISO) $(MM_SELFTESTS_INITRD)
