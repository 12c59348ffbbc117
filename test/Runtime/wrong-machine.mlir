// A program whose kernels are compiled for AArch64 (or RISC-V), run on this
// machine's executors: send_binary refuses the object before anything is
// sent or linked, in one line naming the object's machine and the
// executor's triple, and the program exits 1. On a server, the client
// refuses it: the server never sees it.

// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c "for arch in aarch64 riscv64; do \
// RUN:   sed -e 's|@ADDRESS@|local|' -e \"s|@ARCH@|\$arch|\" %s \
// RUN:     | executor-run - --object-dir=%t/\$arch 2>&1; echo \"exit status \$?\"; done" \
// RUN:   | FileCheck %s --check-prefix=LOCAL -DDIR=%t
// RUN: env WITH_SERVER_LOG=%t/server.log EXECUTOR_LOG=debug %with_server -- sh -c "for arch in aarch64 riscv64; do \
// RUN:   sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e \"s|@ARCH@|\$arch|\" %s \
// RUN:     | env -u EXECUTOR_LOG executor-run - --object-dir=%t/\$arch 2>&1; echo \"exit status \$?\"; done" \
// RUN:   | FileCheck %s --check-prefix=REMOTE -DDIR=%t
// RUN: FileCheck %s --check-prefix=SERVER --input-file=%t/server.log

// LOCAL:      executor runtime: __catalyst__executor__send_binary(address local, path [[DIR]]/aarch64/kernels.o): the object file is for aarch64, the executor runs x86_64-{{.*}}-linux-gnu
// LOCAL-NEXT: exit status 1
// LOCAL-NEXT: executor runtime: __catalyst__executor__send_binary(address local, path [[DIR]]/riscv64/kernels.o): the object file is for riscv64, the executor runs x86_64-{{.*}}-linux-gnu
// LOCAL-NEXT: exit status 1

// REMOTE:      executor runtime: __catalyst__executor__send_binary(address 127.0.0.1:{{[0-9]+}}, path [[DIR]]/aarch64/kernels.o): the object file is for aarch64, the executor runs x86_64-{{.*}}-linux-gnu
// REMOTE-NEXT: exit status 1
// REMOTE-NEXT: executor runtime: __catalyst__executor__send_binary(address 127.0.0.1:{{[0-9]+}}, path [[DIR]]/riscv64/kernels.o): the object file is for riscv64, the executor runs x86_64-{{.*}}-linux-gnu
// REMOTE-NEXT: exit status 1

// Nothing was sent: the server's debug log, which names every request its
// workers serve, has the sessions but no send_binary.
// SERVER:      session started
// SERVER-NOT:  send_binary

module {
  module @kernels attributes {executor.target = {address = "@ADDRESS@", triple = "@ARCH@-unknown-linux-gnu"}} {
    func.func @touch(%x: memref<4xf32>) {
      return
    }
  }
  func.func private @touch(memref<4xf32>) attributes {executor.kernel = @kernels::@touch}
  func.func @main() {
    %x = memref.alloc() : memref<4xf32>
    call @touch(%x) : (memref<4xf32>) -> ()
    memref.dealloc %x : memref<4xf32>
    return
  }
}
