# apps/md/local.mk - hpcq-md, the molecular dynamics engine (see
# apps/md/README.md).  Included by the top-level Makefile.am.
#
# One binary, hpcq-md: with MPI (configure found mpicc) it is compiled
# with Open MPI's flags and -DMD_HAVE_MPI; with CUDA the GPU back end in
# apps/md/gpu.cu is compiled by nvcc and linked in.

MD_SOURCES = \
	apps/md/main.c \
	apps/md/params.c apps/md/params.h \
	apps/md/system.c apps/md/system.h \
	apps/md/datafile.c apps/md/datafile.h \
	apps/md/dump.c apps/md/dump.h \
	apps/md/comm.c apps/md/comm.h \
	apps/md/atoms.c apps/md/atoms.h \
	apps/md/domain.c apps/md/domain.h \
	apps/md/lattice.c apps/md/lattice.h \
	apps/md/neigh.c apps/md/neigh.h \
	apps/md/force.c apps/md/force.h \
	apps/md/thermostat.c apps/md/thermostat.h \
	apps/md/checkpoint.c apps/md/checkpoint.h \
	apps/md/sim.c apps/md/sim.h \
	apps/md/backend.h apps/md/backend_cpu.c

bin_PROGRAMS += apps/md/hpcq-md
apps_md_hpcq_md_SOURCES = $(MD_SOURCES)
apps_md_hpcq_md_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS) $(MD_MPI_COMPILE)
apps_md_hpcq_md_LDADD = libhpcq.a $(MD_MPI_LIBS) $(MD_CUDA_LIBS) $(XXHASH_LIBS) -lm
apps_md_hpcq_md_LDFLAGS = $(AM_LDFLAGS) $(OPENMP_CFLAGS) $(MD_MPI_LINK) \
	$(MD_CUDA_LINK)

if HAVE_MPI
MD_MPI_COMPILE = -DMD_HAVE_MPI $(shell $(MPICC) --showme:compile 2>/dev/null)
MD_MPI_LINK = $(shell $(MPICC) --showme:link 2>/dev/null)
MD_MPI_LIBS = -lmpi
endif

# The CUDA back end: nvcc compiles apps/md/gpu.cu for sm_80 and sm_90
# plus PTX; without CUDA a stub says the GPU back end is not built.
if HAVE_CUDA
MD_CUDA_LIBS = apps/md/gpu_cuda.o -lcudart -lstdc++
MD_CUDA_LINK = -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64
EXTRA_apps_md_hpcq_md_DEPENDENCIES = apps/md/gpu_cuda.o
CLEANFILES += apps/md/gpu_cuda.o
apps/md/gpu_cuda.o: $(srcdir)/apps/md/gpu.cu $(srcdir)/apps/md/backend.h \
		$(srcdir)/apps/md/sim.h $(srcdir)/apps/md/atoms.h $(srcdir)/apps/md/neigh.h
	$(AM_V_GEN)mkdir -p apps/md && $(NVCC) -O3 $(NVCC_ARCH_FLAGS) -std=c++17 \
		-Xcompiler -Wall,-Wextra,-Werror,-Wno-unused-parameter \
		-I$(top_srcdir) -I$(top_builddir) -DHAVE_CONFIG_H -c -o $@ $<
else
apps_md_hpcq_md_SOURCES += apps/md/gpu_none.c
endif

EXTRA_DIST += apps/md/README.md apps/md/gpu.cu apps/md/gpu_none.c apps/md/ref/in.lj

# Tests: a unit test of the pieces, integration tests of the binary.
check_PROGRAMS += apps/md/test/test_md
apps_md_test_test_md_SOURCES = apps/md/test/test_md.c common/test/tap.h \
	apps/md/params.c apps/md/system.c apps/md/comm.c apps/md/atoms.c \
	apps/md/domain.c apps/md/lattice.c apps/md/neigh.c apps/md/force.c
apps_md_test_test_md_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
apps_md_test_test_md_LDADD = libhpcq.a -lm
apps_md_test_test_md_LDFLAGS = $(AM_LDFLAGS) $(OPENMP_CFLAGS)

MD_TESTS = apps/md/test/test_md \
	tests/t3100-md-basic.t \
	tests/t3101-md-checkpoint.t \
	tests/t3102-md-mpi.t \
	tests/t3103-md-gpu.t \
	tests/t3105-md-lammps.t \
	tests/t3106-md-data.t
TESTS += $(MD_TESTS)
EXTRA_DIST += tests/t3100-md-basic.t tests/t3101-md-checkpoint.t \
	tests/t3102-md-mpi.t tests/t3103-md-gpu.t tests/t3105-md-lammps.t \
	tests/t3106-md-data.t tests/md-dump-diff.py
