#if os(Linux) && canImport(Glibc)
import Dispatch
import Foundation
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux) && canImport(Glibc)

/// Watches the machine's network links through netlink (Linux) and tells Courier whether some
/// link is usable, once at start and after each change.
///
/// The kernel sends a message on the watcher's socket whenever a link goes up or down or an
/// address is added or removed. The messages are not parsed: each batch is a cue to look at the
/// interfaces again with ``hasUsableLink()``. A dedicated thread blocks on the socket, so no
/// Courier executor is held while nothing changes.
///
/// The thread keeps the watcher alive until ``close()``, which must be called once it is
/// started.
final class LinkWatcher: Sendable {
    /// The NETLINK_ROUTE socket subscribed to link and address changes.
    private let netlinkSocket: Int32
    /// The end of the wake-up pair the reader thread polls beside the netlink socket.
    private let wakeReceiver: Int32
    /// The end of the wake-up pair ``close()`` writes a byte to.
    private let wakeSender: Int32
    private let state: Locked<State>
    /// Signalled once the reader thread has closed the descriptors and will call nothing more.
    /// Every waiter signals it again, so it stays open for the next one.
    private let exited = DispatchSemaphore(value: 0)

    /// The watcher's mutable state, read and written only under `state`'s lock.
    private struct State {
        /// Whether ``start(onChange:)`` has been called.
        var started = false
        /// Whether ``close()`` has been called.
        var closed = false
        /// Whether the three descriptors are still open. Whoever closes them (``close()`` before
        /// a start, the reader thread after one) does so under the lock and clears this, so no
        /// one writes to a descriptor number that has been closed and reused.
        var descriptorsOpen = true
        /// The reader thread while it runs, so that ``close()`` called from `onChange` does not
        /// wait for the thread it is running on.
        var readerThread: ObjectIdentifier?
    }

    /// How the reader thread's wait on the sockets ended.
    private enum Wakeup {
        /// Netlink messages are waiting (or were lost to an overflow): look at the links again.
        case messages
        /// ``close()`` asked the thread to stop, or the socket failed: stop.
        case stop
    }

    private init(netlinkSocket: Int32, wakeReceiver: Int32, wakeSender: Int32) {
        self.netlinkSocket = netlinkSocket
        self.wakeReceiver = wakeReceiver
        self.wakeSender = wakeSender
        state = Locked(State())
    }

    deinit {
        // A started watcher is kept alive by its thread until that thread has closed the
        // descriptors, so only a watcher that was never started gets here with them open.
        state.withLock { Self.closeDescriptors(of: self, in: &$0) }
    }

    /// Opens a NETLINK_ROUTE socket subscribed to RTMGRP_LINK, RTMGRP_IPV4_IFADDR and
    /// RTMGRP_IPV6_IFADDR, or returns nil where it cannot (no permission, a sandbox without
    /// netlink, too many open files). Never crashes.
    static func open() -> LinkWatcher? {
        let socketType = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let netlinkSocket = Glibc.socket(AF_NETLINK, socketType, Netlink.route)
        guard netlinkSocket >= 0 else { return nil }
        guard bindToChangeGroups(netlinkSocket) else {
            _ = Glibc.close(netlinkSocket)
            return nil
        }
        var pair: [Int32] = [-1, -1]
        let pairType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, pairType, 0, &pair) == 0 else {
            _ = Glibc.close(netlinkSocket)
            return nil
        }
        return LinkWatcher(netlinkSocket: netlinkSocket, wakeReceiver: pair[0], wakeSender: pair[1])
    }

    /// Binds `fd` to the kernel's link and address change groups. Swift's Glibc module does not
    /// bring in `sockaddr_nl`, so its 12 bytes (`nl_family`, padding, `nl_pid`, `nl_groups`) are
    /// written into a zeroed `sockaddr_storage`; a `nl_pid` of 0 lets the kernel pick the port.
    private static func bindToChangeGroups(_ fd: Int32) -> Bool {
        var address = sockaddr_storage()
        withUnsafeMutableBytes(of: &address) { bytes in
            bytes.storeBytes(of: sa_family_t(AF_NETLINK), toByteOffset: 0, as: sa_family_t.self)
            bytes.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
            bytes.storeBytes(of: Netlink.changeGroups, toByteOffset: 8, as: UInt32.self)
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, Netlink.addressLength)
            }
        }
        return status == 0
    }

    /// Starts a dedicated thread that blocks reading the socket and calls
    /// `onChange(hasUsableLink())` once at start, then after each batch of netlink messages when
    /// the value differs from the last one reported. Calls are made one at a time, on that
    /// thread. Call once: later calls, and calls after ``close()``, do nothing.
    func start(onChange: @escaping @Sendable (Bool) -> Void) {
        let shouldStart = state.withLock { state in
            guard !state.started, !state.closed else { return false }
            state.started = true
            return true
        }
        guard shouldStart else { return }
        let thread = Thread { [self] in run(onChange: onChange) }
        thread.name = "Courier.LinkWatcher"
        thread.start()
    }

    /// Stops the thread and closes the socket. Idempotent. Once it returns, `onChange` is never
    /// called again. It returns as soon as the thread has woken and exited, which waits only for
    /// an `onChange` call already under way; called from `onChange` itself, it returns at once
    /// and the thread exits when `onChange` returns.
    func close() {
        let current = ObjectIdentifier(Thread.current)
        let waitForThread = state.withLock { state in
            state.closed = true
            if state.started {
                if state.descriptorsOpen {
                    var byte: UInt8 = 1
                    // The pair is non-blocking; a full buffer already holds a wake-up.
                    _ = Glibc.write(wakeSender, &byte, 1)
                }
                return state.readerThread != current
            }
            Self.closeDescriptors(of: self, in: &state)
            return false
        }
        if waitForThread {
            exited.wait()
            exited.signal()
        }
    }

    // MARK: Reader thread

    private func run(onChange: @escaping @Sendable (Bool) -> Void) {
        state.withLock { $0.readerThread = ObjectIdentifier(Thread.current) }
        // Netlink messages fit in a page; 16 KiB holds even large batches. They are only
        // drained, never parsed, so a truncated one does no harm.
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var lastReported = Self.hasUsableLink()
        if deliver(lastReported, to: onChange) {
            while waitForMessages() == .messages, drain(into: &buffer) {
                let usable = Self.hasUsableLink()
                guard usable != lastReported else { continue }
                lastReported = usable
                guard deliver(usable, to: onChange) else { break }
            }
        }
        state.withLock { state in
            state.readerThread = nil
            Self.closeDescriptors(of: self, in: &state)
        }
        exited.signal()
    }

    /// Calls `onChange` unless the watcher has been closed; returns whether it did. A close that
    /// slips in between the check and the call waits for the thread to exit, so it still returns
    /// only after this call.
    private func deliver(_ usable: Bool, to onChange: @Sendable (Bool) -> Void) -> Bool {
        guard !state.withLock({ $0.closed }) else { return false }
        onChange(usable)
        return true
    }

    /// Blocks until netlink messages arrive or ``close()`` writes to the wake-up pair.
    private func waitForMessages() -> Wakeup {
        let readable = Int16(POLLIN)
        var descriptors = [
            pollfd(fd: netlinkSocket, events: readable, revents: 0),
            pollfd(fd: wakeReceiver, events: readable, revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .stop
            }
            if descriptors[1].revents != 0 { return .stop }
            let events = descriptors[0].revents
            if events & Int16(POLLNVAL | POLLHUP) != 0 { return .stop }
            // POLLERR is how an overflow (ENOBUFS) shows: `drain` clears it.
            if events != 0 { return .messages }
        }
    }

    /// Reads every queued netlink message without blocking. Returns false if the socket failed.
    private func drain(into buffer: inout [UInt8]) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes {
                recv(netlinkSocket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 { continue }
            if count == 0 { return true }
            switch errno {
            case EAGAIN, EWOULDBLOCK: return true
            // ENOBUFS: the kernel dropped messages because the queue was full. Nothing is lost
            // for the watcher, which looks at the interfaces afresh after every batch.
            case EINTR, ENOBUFS: continue
            default: return false
            }
        }
    }

    /// Closes the three descriptors if they are open. Called with `watcher`'s lock held.
    private static func closeDescriptors(of watcher: LinkWatcher, in state: inout State) {
        guard state.descriptorsOpen else { return }
        state.descriptorsOpen = false
        _ = Glibc.close(watcher.netlinkSocket)
        _ = Glibc.close(watcher.wakeReceiver)
        _ = Glibc.close(watcher.wakeSender)
    }
}

/// Netlink constants that Swift's Glibc module does not bring in (they live in
/// `<linux/netlink.h>` and `<linux/rtnetlink.h>`).
private enum Netlink {
    /// `NETLINK_ROUTE`: the routing and link family.
    static let route: Int32 = 0
    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR`.
    static let changeGroups: UInt32 = 0x1 | 0x10 | 0x100
    /// `sizeof(struct sockaddr_nl)`.
    static let addressLength = socklen_t(12)
}

#else

/// Watches the machine's network links through netlink, which exists only on Linux: here
/// ``open()`` returns nil and Courier relies on its other signals (``PathWatcher`` on Apple
/// platforms).
final class LinkWatcher: Sendable {
    private init() {}

    /// Returns nil: netlink exists only on Linux.
    static func open() -> LinkWatcher? { nil }

    /// Does nothing; no watcher is ever made here.
    func start(onChange: @escaping @Sendable (Bool) -> Void) {}

    /// Does nothing; no watcher is ever made here.
    func close() {}
}

#endif

extension LinkWatcher {
    /// Whether some interface other than loopback is up and running (IFF_UP and IFF_RUNNING) and
    /// has an IPv4 or IPv6 address, as `getifaddrs` lists them. Returns true where interfaces
    /// cannot be listed, so Courier never reports offline for lack of information.
    static func hasUsableLink() -> Bool {
        #if (os(Linux) && canImport(Glibc)) || canImport(Darwin)
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return true }
        defer { freeifaddrs(first) }
        var next = first
        while let entry = next {
            next = entry.pointee.ifa_next
            let flags = UInt32(entry.pointee.ifa_flags)
            guard flags & InterfaceFlags.upAndRunning == InterfaceFlags.upAndRunning,
                flags & InterfaceFlags.loopback == 0,
                let address = entry.pointee.ifa_addr
            else { continue }
            let family = address.pointee.sa_family
            if family == sa_family_t(AF_INET) || family == sa_family_t(AF_INET6) { return true }
        }
        return false
        #else
        return true
        #endif
    }
}

/// Interface flags from `<net/if.h>`, with the same values on Linux and Apple platforms. Swift
/// imports them as different types on each, so they are spelled out here.
private enum InterfaceFlags {
    /// `IFF_UP | IFF_RUNNING`.
    static let upAndRunning: UInt32 = 0x1 | 0x40
    /// `IFF_LOOPBACK`.
    static let loopback: UInt32 = 0x8
}
