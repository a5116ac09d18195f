dnl Linux-only calls that make durability cheap, each with a portable fallback
dnl in src/syncbatch.c and src/durable/rootfs.c when missing.
AC_DEFUN([DEBUNPACK_SYNC_CHECKS], [
  AC_CHECK_FUNCS([sync_file_range syncfs posix_fadvise fdatasync])
  AC_CHECK_HEADERS([linux/openat2.h])
  AC_CHECK_DECLS([SYS_openat2], [], [], [[#include <sys/syscall.h>]])
])

dnl Warnings every build gets.  --enable-werror (CI) makes them errors; it
dnl goes into AM_CFLAGS only, so configure's own test programs are not hit.
AC_DEFUN([DEBUNPACK_WARNINGS], [
  WARN_CFLAGS="-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2"
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [AS_IF([test "x$enableval" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])])
  AC_SUBST([WARN_CFLAGS])
])
