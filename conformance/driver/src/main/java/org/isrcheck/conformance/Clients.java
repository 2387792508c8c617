// The producing and consuming application: one KafkaProducer (kafka-clients 4.4) whose
// every send's outcome is kept as the application sees it (acked with its offset, the
// Kafka error, or still pending), and one KafkaConsumer reading one offset at a time
// (assign + seek + poll, read_uncommitted). A scenario may have each send stand for one
// producer batch of n records ("records_per_send", docs/conformance.md): the n records of
// a send are appended to one batch of the RecordAccumulator (linger.ms holds it open) and
// flushed together, and the send's outcome is that of the batch.
// Client calls can block without bound in Kafka
// (an idempotent producer waiting for InitProducerId without an active controller, a
// metadata wait): they run on worker threads and the protocol only ever waits for them
// with a deadline.
package org.isrcheck.conformance;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

final class Clients {
  /** One send as the application sees it. */
  static final class Send {
    final int record;
    final int parts;  // Kafka records this send consists of (one batch)
    volatile String result = "pending";
    volatile Long offset;
    volatile String exception;
    volatile boolean done;
    final long sentAt = System.currentTimeMillis();
    volatile long doneAt;
    private final String[] partResult;
    private final Long[] partOffset;
    private final Throwable[] partError;
    private int partsDone;

    Send(int record, int parts) {
      this.record = record;
      this.parts = parts;
      this.partResult = new String[parts];
      this.partOffset = new Long[parts];
      this.partError = new Throwable[parts];
    }

    /**
     * The outcome of record i of a send of several records. Once all are in, the send is
     * acked at the first record's offset when all are acked at consecutive offsets (one
     * batch), ends with the error when all end with the same one, and is NOT_ONE_BATCH
     * (an answer no scenario expects) otherwise.
     */
    synchronized void part(int i, String result, Long offset, Throwable error) {
      if (done || partResult[i] != null) return;
      partResult[i] = result;
      partOffset[i] = offset;
      partError[i] = error;
      if (++partsDone < parts) return;
      boolean same = true;
      for (String r : partResult) same = same && r.equals(partResult[0]);
      if (same && partResult[0].equals("acked")) {
        for (int j = 0; j < parts; ++j) {
          if (partOffset[j] == null || partOffset[j] != partOffset[0] + j) {
            finish("NOT_ONE_BATCH", partOffset[0], new IllegalStateException(
                "acked at offsets " + java.util.Arrays.toString(partOffset) + ", not one batch"));
            return;
          }
        }
        finish("acked", partOffset[0], null);
      } else if (same) {
        finish(partResult[0], null, partError[0]);
      } else {
        finish("NOT_ONE_BATCH", null, new IllegalStateException(
            "the records of one send ended differently: " + java.util.Arrays.toString(partResult)));
      }
    }

    synchronized void finish(String result, Long offset, Throwable error) {
      if (done) return;
      this.result = result;
      this.offset = offset;
      this.exception = error == null ? null : error.getClass().getName() + ": " + error.getMessage();
      this.done = true;
      this.doneAt = System.currentTimeMillis();
      notifyAll();
    }

    synchronized void await(long deadline) throws InterruptedException {
      while (!done) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) return;
        wait(left);
      }
    }

    void fill(ObjectNode out) {
      out.put("record", record);
      out.put("result", result);
      if (offset == null) out.putNull("offset"); else out.put("offset", offset);
      if (exception == null) out.putNull("exception"); else out.put("exception", exception);
      if (done) out.put("latency_ms", doneAt - sentAt);
      if (parts > 1) out.put("records", parts);
    }
  }

  private KafkaProducer<byte[], byte[]> producer;
  private ExecutorService sender;
  private final Map<Integer, Send> sends = new TreeMap<>();
  private int recordsPerSend = 1;
  private KafkaConsumer<byte[], byte[]> consumer;
  private ExecutorService consumerThread;

  /** (Re)creates the producer: a new application, so the table of sends starts empty. */
  synchronized Map<String, Object> createProducer(String bootstrap, Properties props, int recordsPerSend) {
    closeProducer();
    sends.clear();
    this.recordsPerSend = recordsPerSend;
    Properties p = new Properties();
    p.putAll(props);
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.putIfAbsent("client.id", "isrcheck-producer");
    producer = new KafkaProducer<>(p);
    sender = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "producer-send");
      t.setDaemon(true);
      return t;
    });
    Map<String, Object> effective = new TreeMap<>();
    for (String k : p.stringPropertyNames()) effective.put(k, p.getProperty(k));
    return effective;
  }

  synchronized boolean haveProducer() {
    return producer != null;
  }

  /**
   * Fetches the topic's metadata into the producer (KafkaProducer.partitionsFor, bounded
   * by max.block.ms), so that its first send needs no metadata request: a broker paused
   * just before that send (SIGSTOP answers nothing) cannot make it block.
   */
  synchronized int warm(String topic) throws DriverException {
    if (producer == null) throw DriverException.badRequest("no producer: send op \"producer\" first");
    try {
      return producer.partitionsFor(topic).size();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw DriverException.timeout("the producer got no metadata for " + topic + ": " + e.getMessage());
    } catch (org.apache.kafka.common.KafkaException e) {
      throw DriverException.kafka("metadata for " + topic + ": " + e);
    }
  }

  /** Issues the send of record k on the sender thread; returns its tracking object. */
  synchronized Send send(String topic, int k) throws DriverException {
    if (producer == null) throw DriverException.badRequest("no producer: send op \"producer\" first");
    if (sends.containsKey(k)) throw DriverException.badRequest("record " + k + " was already sent");
    Send s = new Send(k, recordsPerSend);
    sends.put(k, s);
    KafkaProducer<byte[], byte[]> p = producer;
    if (recordsPerSend > 1) {
      final int n = recordsPerSend;
      sender.submit(() -> {
        // The n records go into the partition's open batch (RecordAccumulator.append; the
        // producer's linger.ms keeps it from being drained meanwhile), then flush() makes
        // that batch sendable at once and waits for it to complete. The flush also keeps
        // the next send's records out of the accumulator until this batch completed, so a
        // batch made ready by this flush never receives another send's records.
        for (int i = 0; i < n; ++i) {
          final int part = i;
          try {
            ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, 0, null,
                ("record-" + k + "." + (i + 1)).getBytes(StandardCharsets.UTF_8));
            p.send(rec, (md, err) -> {
              if (err == null) s.part(part, "acked", md.offset(), null);
              else s.part(part, errorName(err), null, err);
            });
          } catch (Throwable err) {
            s.part(part, errorName(err), null, err);
          }
        }
        try {
          p.flush();
        } catch (Throwable ignored) {
          // the producer is being closed; each record's callback reports its outcome
        }
      });
      return s;
    }
    sender.submit(() -> {
      try {
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, 0, null,
            ("record-" + k).getBytes(StandardCharsets.UTF_8));
        p.send(rec, (md, err) -> {
          if (err == null) s.finish("acked", md.offset(), null);
          else s.finish(errorName(err), null, err);
        });
      } catch (Throwable err) {
        s.finish(errorName(err), null, err);
      }
    });
    return s;
  }

  synchronized Send status(int k) throws DriverException {
    Send s = sends.get(k);
    if (s == null) throw DriverException.badRequest("record " + k + " was never sent");
    return s;
  }

  synchronized Map<Integer, Send> sends() {
    return new TreeMap<>(sends);
  }

  /** The Kafka error name the application would see for `err`. */
  static String errorName(Throwable err) {
    Throwable e = err;
    if (e instanceof java.util.concurrent.ExecutionException && e.getCause() != null) e = e.getCause();
    if (e instanceof org.apache.kafka.common.errors.TimeoutException) return Errors.REQUEST_TIMED_OUT.name();
    Errors code = Errors.forException(e);
    return code == Errors.UNKNOWN_SERVER_ERROR ? "UNKNOWN_SERVER_ERROR" : code.name();
  }

  /**
   * Reads the record at `offset` (assign + seek + poll). Returns the raw value or null;
   * `why` receives the reason when nothing was read.
   */
  String consume(String bootstrap, String topic, long offset, long timeoutMs, StringBuilder why)
      throws DriverException {
    List<String> values = consume(bootstrap, topic, offset, 1, timeoutMs, why);
    return values == null ? null : values.get(0);
  }

  /**
   * Reads the `count` records at offsets offset .. offset+count-1 (one model record that
   * stands for a batch). Returns their raw values in offset order, or null (`why` says why)
   * when not all of them were readable within the time.
   */
  List<String> consume(String bootstrap, String topic, long offset, int count, long timeoutMs, StringBuilder why)
      throws DriverException {
    KafkaConsumer<byte[], byte[]> c;
    ExecutorService worker;
    synchronized (this) {
      if (consumer == null) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "none");
        p.put("isolation.level", "read_uncommitted");
        p.put("client.id", "isrcheck-consumer");
        p.put("request.timeout.ms", "3000");
        p.put("default.api.timeout.ms", "3000");
        p.put("metadata.max.age.ms", "1000");
        p.put("max.poll.records", "1");
        consumer = new KafkaConsumer<>(p);
        consumerThread = Executors.newSingleThreadExecutor(r -> {
          Thread t = new Thread(r, "consumer");
          t.setDaemon(true);
          return t;
        });
      }
      c = consumer;
      worker = consumerThread;
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    long deadline = System.currentTimeMillis() + timeoutMs;
    Future<List<String>> f = worker.submit(() -> {
      c.assign(List.of(tp));
      c.seek(tp, offset);
      List<String> got = new java.util.ArrayList<>();
      while (System.currentTimeMillis() < deadline) {
        ConsumerRecords<byte[], byte[]> recs;
        try {
          recs = c.poll(Duration.ofMillis(Math.max(1, Math.min(500, deadline - System.currentTimeMillis()))));
        } catch (OffsetOutOfRangeException e) {
          why.append("offset out of range: ").append(e.getMessage());
          return null;
        }
        for (ConsumerRecord<byte[], byte[]> r : recs.records(tp)) {
          long want = offset + got.size();
          if (r.offset() < want) continue;
          if (r.offset() > want) {
            why.append("offset ").append(want).append(" not in the log (next is ").append(r.offset()).append(')');
            return null;
          }
          got.add(r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8));
          if (got.size() == count) return got;
        }
      }
      why.append("nothing readable at offset ").append(offset + got.size()).append(" within ").append(timeoutMs)
          .append(" ms");
      return null;
    });
    try {
      return f.get(timeoutMs + 2000, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // A consumer call hung past its own timeout: abandon this consumer.
      c.wakeup();
      synchronized (this) {
        if (consumer == c) {
          consumer = null;
          consumerThread.shutdownNow();
          final KafkaConsumer<byte[], byte[]> old = c;
          new Thread(() -> closeQuietly(old), "consumer-close").start();
        }
      }
      throw DriverException.timeout("consumer did not return within " + (timeoutMs + 2000) + " ms");
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof WakeupException) throw DriverException.timeout("consumer woken up");
      throw DriverException.kafka("consume failed: " + cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw DriverException.internal("interrupted");
    }
  }

  private static void closeQuietly(KafkaConsumer<byte[], byte[]> c) {
    try {
      c.close(Duration.ofMillis(1000));
    } catch (Exception ignored) {
      // abandoned anyway
    }
  }

  synchronized void closeProducer() {
    if (producer != null) {
      final KafkaProducer<byte[], byte[]> old = producer;
      final ExecutorService oldSender = sender;
      producer = null;
      sender = null;
      // close() can block (a send stuck in the client): bounded, off the protocol thread.
      Thread t = new Thread(() -> {
        try {
          old.close(Duration.ofMillis(1000));
        } catch (Exception ignored) {
          // closing anyway
        }
        oldSender.shutdownNow();
      }, "producer-close");
      t.setDaemon(true);
      t.start();
    }
  }

  /** Forgets every send (a new topic: a new scenario on a reused cluster). */
  synchronized void forgetSends() {
    sends.clear();
  }

  /** Closes both clients and forgets every send (a new cluster). */
  synchronized void reset() {
    closeProducer();
    if (consumer != null) {
      final KafkaConsumer<byte[], byte[]> old = consumer;
      consumerThread.shutdownNow();
      consumer = null;
      Thread t = new Thread(() -> closeQuietly(old), "consumer-close");
      t.setDaemon(true);
      t.start();
    }
    sends.clear();
  }
}
