# apps/climate/local.mk - included by the top-level Makefile.am (non-recursive
# build): add to bin_PROGRAMS, check_PROGRAMS, TESTS, EXTRA_DIST with +=.
#
# hpcq-climate: the 2D atmospheric dynamical core (see apps/climate/README.md).
# With MPI it is compiled and linked with Open MPI's flags (asked of mpicc at
# build time); with CUDA the kernels in climate_cuda.cu are built by nvcc
# for sm_80/sm_90 plus PTX and linked with the static CUDA runtime.

CLIMATE_SRC = \
	apps/climate/climate_kernels.h \
	apps/climate/climate_cases.c apps/climate/climate_cases.h \
	apps/climate/climate_model.c apps/climate/climate_model.h \
	apps/climate/climate_cpu.c \
	apps/climate/climate_pow.c apps/climate/climate_pow.h \
	apps/climate/climate_comm.c apps/climate/climate_comm.h \
	apps/climate/climate_step.c apps/climate/climate_step.h \
	apps/climate/climate_ckpt.c apps/climate/climate_ckpt.h \
	apps/climate/climate_output.c apps/climate/climate_output.h \
	apps/climate/climate_opts.c apps/climate/climate_opts.h \
	apps/climate/climate_run.c apps/climate/climate_run.h \
	apps/climate/climate_gpu.h

bin_PROGRAMS += apps/climate/hpcq-climate
apps_climate_hpcq_climate_SOURCES = apps/climate/main.c $(CLIMATE_SRC)
apps_climate_hpcq_climate_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS) $(NETCDF_CFLAGS)
apps_climate_hpcq_climate_CPPFLAGS = $(AM_CPPFLAGS)
apps_climate_hpcq_climate_LDADD = libhpcq.a $(NETCDF_LIBS) $(MVEC_LIBS) $(XXHASH_LIBS) -lm
apps_climate_hpcq_climate_LDFLAGS = $(AM_LDFLAGS) $(OPENMP_CFLAGS)
# explicit, because LDADD holds a shell command (the MPI link flags)
apps_climate_hpcq_climate_DEPENDENCIES = libhpcq.a

if HAVE_MPI
CLIMATE_MPI_CFLAGS = `$(MPICC) --showme:compile`
CLIMATE_SHOWME_LINK = --showme:link
CLIMATE_MPI_LIBS = `$(MPICC) $(CLIMATE_SHOWME_LINK)`
apps_climate_hpcq_climate_CPPFLAGS += -DHPCQ_CLIMATE_MPI $(CLIMATE_MPI_CFLAGS)
apps_climate_hpcq_climate_LDADD += $(CLIMATE_MPI_LIBS)
endif

if HAVE_CUDA
apps_climate_hpcq_climate_LDADD += apps/climate/climate_cuda.$(OBJEXT) \
	-L$(CUDA_DIR)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
apps_climate_hpcq_climate_DEPENDENCIES += apps/climate/climate_cuda.$(OBJEXT)
apps/climate/climate_cuda.$(OBJEXT): $(srcdir)/apps/climate/climate_cuda.cu \
		$(srcdir)/apps/climate/climate_kernels.h $(srcdir)/apps/climate/climate_model.h \
		$(srcdir)/apps/climate/climate_gpu.h
	$(AM_V_GEN)mkdir -p apps/climate && $(NVCC) $(NVCC_ARCH_FLAGS) -O3 -std=c++17 \
		-I$(top_srcdir) -I$(top_builddir) -Xcompiler -Wall,-Wextra,-Werror,-Wno-unused-parameter \
		-c -o $@ $(srcdir)/apps/climate/climate_cuda.cu
CLEANFILES += apps/climate/climate_cuda.$(OBJEXT)
else
apps_climate_hpcq_climate_SOURCES += apps/climate/climate_gpu_none.c
endif
EXTRA_DIST += apps/climate/climate_cuda.cu


# The PNG helper reads the NetCDF snapshots and writes with libpng.
if HAVE_PLOT
bin_PROGRAMS += apps/climate/hpcq-climate-plot
apps_climate_hpcq_climate_plot_SOURCES = apps/climate/plot.c
apps_climate_hpcq_climate_plot_CFLAGS = $(AM_CFLAGS) $(NETCDF_CFLAGS) $(PNG_CFLAGS)
apps_climate_hpcq_climate_plot_LDADD = $(NETCDF_LIBS) $(PNG_LIBS) -lm
else
EXTRA_DIST += apps/climate/plot.c
endif
EXTRA_DIST += apps/climate/README.md tests/gpu/climate.sh bench/climate-cpu.sh

# Unit tests of the kernels (CPU back end, one rank).
check_PROGRAMS += apps/climate/test/test_kernels
apps_climate_test_test_kernels_SOURCES = apps/climate/test/test_kernels.c \
	common/test/tap.h apps/climate/climate_kernels.h \
	apps/climate/climate_cases.c apps/climate/climate_model.c \
	apps/climate/climate_cpu.c apps/climate/climate_pow.c \
	apps/climate/climate_step.c apps/climate/climate_comm.c
apps_climate_test_test_kernels_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
apps_climate_test_test_kernels_LDADD = libhpcq.a $(MVEC_LIBS) -lm
apps_climate_test_test_kernels_LDFLAGS = $(AM_LDFLAGS) $(OPENMP_CFLAGS)

CLIMATE_TESTS = \
	apps/climate/test/test_kernels \
	tests/t3200-climate-cases.t \
	tests/t3201-climate-cli.t \
	tests/t3202-climate-netcdf.t \
	tests/t3203-climate-restart.t \
	tests/t3204-climate-mpi.t \
	tests/t3205-climate-convergence.t
TESTS += $(CLIMATE_TESTS)
EXTRA_DIST += $(filter %.t,$(CLIMATE_TESTS)) apps/climate/climate_gpu_none.c
