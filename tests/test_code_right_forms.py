"""Right solutions in the forms real model responses take, per language: a whole program with
its own entry point and example usage (`int main`, `fn main`, `static void Main`, `main = ...`,
`if __name__ == "__main__"`), printing to stdout and stderr beside returning (a large output
too), helper functions and types of its own, recursion, imports of common standard modules,
non-ASCII names, strings and comments, comments that say assert, panic, main, class or import,
the language's idioms (generics, traits, templates and lambdas, records and streams, LINQ,
extension functions, case classes and implicits, interfaces, blocks, closures and namespaces,
packages, metatables, functors, type classes and where-clauses, contracts, `local`); and the
same answer dressed as a response: prose around a fenced block, CRLF line ends, a UTF-8 BOM,
tabs. Each must score `correct` against MultiPL-E-shaped tests (judged outside the solution's
process) and against tests that loop (run in its process).

Each solution is `fib(n)`, the n-th Fibonacci number.
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import installed_languages, run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 10, "memory_mb": 1024}

SOLUTIONS = {
    "python": '''import sys
import math
from functools import lru_cache
from typing import List, Tuple

# main, assert, panic, class, import: words in a comment. Größe: 斐波那契 ✓
class Matrix:
    """A 2x2 matrix (helper type)."""
    def __init__(self, a, b, c, d):
        self.a, self.b, self.c, self.d = a, b, c, d

    def __mul__(self, o: "Matrix") -> "Matrix":
        return Matrix(self.a * o.a + self.b * o.c, self.a * o.b + self.b * o.d,
                      self.c * o.a + self.d * o.c, self.c * o.b + self.d * o.d)


def _pötenz(m: Matrix, n: int) -> Matrix:
    if n == 1:
        return m
    half = _pötenz(m, n // 2)
    return half * half if n % 2 == 0 else half * half * m


@lru_cache(maxsize=None)
def fib(n: int) -> int:
    """Return the n-th Fibonacci number. assert fib(10) == 55"""
    print(f"fib({n}) héllo ✓")
    print("x" * 1000, file=sys.stderr)
    if n == 0:
        return 0
    return _pötenz(Matrix(1, 1, 1, 0), n).b


if __name__ == "__main__":
    # Example usage
    for i in range(11):
        print(i, fib(i))
    assert fib(10) == 55
''',
    "c": r'''#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

/* Größe: 斐波那契 — main, assert, panic, class, import are words here. */
typedef struct { long long a, b; } Pair;   // a helper type

static Pair step(Pair p) { Pair q = { p.b, p.a + p.b }; return q; }

static long long fib_rék(int n, Pair p) {  // recursion
    return n == 0 ? p.a : fib_rék(n - 1, step(p));
}

static void banner(void) {
    static int shown = 0;
    if (shown++) return;
    for (int i = 0; i < 5000; i++) printf("line %d of a large but legitimate output\n", i);
}

long long fib(int n) {
    Pair start = {0, 1};
    banner();
    fprintf(stderr, "fib(%d) héllo ✓\n", n);
    printf("computing fib(%d)\n", n);
    return fib_rék(n, start);
}

int main(void) {
    // Example usage
    for (int i = 0; i <= 10; i++) printf("%d %lld\n", i, fib(i));
    return 0;
}
''',
    "cpp": r'''#include <bits/stdc++.h>
using namespace std;

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
namespace detail {
template <typename T>
struct Matrix {
    T a, b, c, d;
    Matrix operator*(const Matrix& o) const {
        return {a * o.a + b * o.c, a * o.b + b * o.d, c * o.a + d * o.c, c * o.b + d * o.d};
    }
};

template <typename T>
Matrix<T> pötenz(Matrix<T> m, int n) {
    if (n == 1) return m;
    auto half = pötenz(m, n / 2);
    return n % 2 ? half * half * m : half * half;
}
}  // namespace detail

long fib(long n) {
    static bool shown = false;
    if (!shown) {
        shown = true;
        for (int i = 0; i < 5000; i++) cout << "line " << i << " of output\n";
    }
    cerr << "fib(" << n << ") héllo ✓" << endl;
    auto square = [](long x) { return x * x; };
    (void)square(n);
    if (n == 0) return 0;
    return detail::pötenz(detail::Matrix<long>{1, 1, 1, 0}, (int)n).b;
}

int main() {
    // Example usage
    vector<long> xs;
    for (int i = 0; i <= 10; ++i) xs.push_back(fib(i));
    for (auto x : xs) cout << x << ' ';
    cout << endl;
    assert(fib(10) == 55);
    return 0;
}
''',
    "java": r'''import java.util.*;
import java.util.stream.*;

// Größe: 斐波那契 — main, assert, panic, class Math, import are words here.
class Problem {
    record Pair(long a, long b) {
        Pair next() { return new Pair(b, a + b); }
    }

    private static long wälk(int n, Pair p) {   // recursion
        return n == 0 ? p.a() : wälk(n - 1, p.next());
    }

    public static long fib(long n) {
        System.err.println("fib(" + n + ") héllo ✓");
        System.out.println("computing " + n);
        List<Long> seen = LongStream.range(0, 3).boxed().collect(Collectors.toList());
        return wälk((int) n, new Pair(0, seen.size() - 2));
    }

    public static void main(String[] args) {
        // Example usage
        for (int i = 0; i <= 10; i++) System.out.println(i + " " + fib(i));
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 5000; i++) big.append("line ").append(i).append('\n');
        System.out.print(big);
    }
}
''',
    "javascript": '''const assert = require('assert');
const util = require('util');

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
class Matrix {
  constructor(a, b, c, d) { Object.assign(this, { a, b, c, d }); }
  times(o) {
    return new Matrix(this.a * o.a + this.b * o.c, this.a * o.b + this.b * o.d,
                      this.c * o.a + this.d * o.c, this.c * o.b + this.d * o.d);
  }
}

const pötenz = (m, n) =>
  n === 1 ? m : n % 2 ? pötenz(m, n - 1).times(m) : pötenz(m.times(m), n / 2);

function fib(n) {
  console.log(`fib(${n}) héllo ✓`);
  console.error(util.format('%s', 'x'.repeat(1000)));
  return n === 0 ? 0 : pötenz(new Matrix(1, 1, 1, 0), n).b;
}

function main() {
  // Example usage
  for (let i = 0; i <= 10; i++) console.log(i, fib(i));
  assert.strictEqual(fib(10), 55);
}

main();
module.exports = { fib };
''',
    "typescript": '''// Größe: 斐波那契 — main, assert, panic, class, import are words here.
interface Pair { a: number; b: number; }
type Step = (p: Pair) => Pair;

const step: Step = ({ a, b }) => ({ a: b, b: a + b });

class Walker<T extends Pair> {
  constructor(private readonly start: T) {}
  wälk(n: number, p: Pair = this.start): number {
    return n === 0 ? p.a : this.wälk(n - 1, step(p));
  }
}

enum Mode { Fast = "fast", Slow = "slow" }

function fib(n: number): number {
  console.log(`fib(${n}) héllo ✓ ${Mode.Fast}`);
  console.error("x".repeat(1000));
  return new Walker<Pair>({ a: 0, b: 1 }).wälk(n);
}

function main(): void {
  // Example usage
  for (let i = 0; i <= 10; i++) console.log(i, fib(i));
}

main();
''',
    "rust": '''use std::collections::HashMap;
use std::fmt;

// Größe: 斐波那契 — main, assert!, panic!, class, import are words here.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pair { a: i64, b: i64 }

trait Step { fn step(self) -> Self; }

impl Step for Pair {
    fn step(self) -> Self { Pair { a: self.b, b: self.a + self.b } }
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.a, self.b)
    }
}

fn longest<'a>(x: &'a str, y: &'a str) -> &'a str { if x.len() >= y.len() { x } else { y } }

fn wälk(n: i64, p: Pair, memo: &mut HashMap<i64, i64>) -> i64 {
    if n == 0 { return p.a; }
    let r = wälk(n - 1, p.step(), memo);
    memo.insert(n, r);
    r
}

fn fib(n: i64) -> i64 {
    eprintln!("fib({}) héllo ✓ {}", n, longest("a", "bb"));
    println!("{}", "x".repeat(1000));
    let mut memo = HashMap::new();
    wälk(n, Pair { a: 0, b: 1 }, &mut memo)
}

fn main() {
    // Example usage
    for i in 0..=10 { println!("{} {}", i, fib(i)); }
    assert_eq!(fib(10), 55);
}
''',
    "bash": '''#!/bin/bash
# Größe: 斐波那契 — main, assert, panic, class, import are words here.
wälk() {
    local n=$1 a=$2 b=$3
    if (( n == 0 )); then
        echo "$a"
    else
        wälk $(( n - 1 )) "$b" $(( a + b ))
    fi
}

fib() {
    echo "fib($1) héllo ✓" >&2
    wälk "$1" 0 1
}

main() {
    # Example usage
    for i in $(seq 0 10); do
        echo "$i $(fib "$i")"
    done
}

if [[ "${BASH_SOURCE[0]}" == "${0}" ]]; then
    main "$@"
fi
''',
    "go": '''package main

import (
	"fmt"
	"os"
	"strings"
)

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
type Number interface {
	~int | ~int64
}

type Pair[T Number] struct{ A, B T }

func (p Pair[T]) Next() Pair[T] { return Pair[T]{p.B, p.A + p.B} }

func wälk[T Number](n int, p Pair[T]) T {
	if n == 0 {
		return p.A
	}
	return wälk(n-1, p.Next())
}

func fib(n int) int {
	fmt.Fprintln(os.Stderr, "fib héllo ✓", n)
	fmt.Println(strings.Repeat("x", 1000))
	return wälk(n, Pair[int]{0, 1})
}

func main() {
	// Example usage
	for i := 0; i <= 10; i++ {
		fmt.Println(i, fib(i))
	}
}
''',
    "csharp": '''using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

// Größe: 斐波那契 — main, assert, panic, class Math, import are words here.
class Problem {
    struct Pair {
        public long A, B;
        public Pair(long a, long b) { A = a; B = b; }
        public Pair Next() => new Pair(B, A + B);
    }

    static long Wälk(long n, Pair p) => n == 0 ? p.A : Wälk(n - 1, p.Next());

    public static long Fib(long n) {
        Console.Error.WriteLine($"Fib({n}) héllo ✓");
        Console.WriteLine(new string('x', 1000));
        var ones = Enumerable.Range(0, 2).Select(i => (long)i).ToList();
        return Wälk(n, new Pair(ones[0], ones[1]));
    }

    public static void Main(string[] args) {
        // Example usage
        for (int i = 0; i <= 10; i++) Console.WriteLine($"{i} {Fib(i)}");
    }
}
''',
    "d": '''import std.stdio;
import std.algorithm;
import std.range;
import std.conv : to;

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
struct Pair { long a, b; Pair next() const { return Pair(b, a + b); } }

long wälk(long n, Pair p) { return n == 0 ? p.a : wälk(n - 1, p.next()); }

long fib(long n) {
    stderr.writeln("fib(", n, ") héllo ✓");
    writeln("x".repeat(1000).join);
    return wälk(n, Pair(0, 1));
}

void main() {
    // Example usage
    foreach (i; 0 .. 11) writeln(i, " ", fib(i));
}
''',
    "lua": r'''-- Größe: 斐波那契 — main, assert, panic, class, import are words here.
local Pair = {}
Pair.__index = Pair

function Pair.new(a, b) return setmetatable({a = a, b = b}, Pair) end
function Pair:next() return Pair.new(self.b, self.a + self.b) end

local function walk(n, p)
  if n == 0 then return p.a end
  return walk(n - 1, p:next())
end

function fib(n)
  io.stderr:write("fib(" .. n .. ") héllo ✓\n")
  print(string.rep("x", 1000))
  return walk(n, Pair.new(0, 1))
end

local function main()
  -- Example usage
  for i = 0, 10 do print(i, fib(i)) end
  assert(fib(10) == 55)
end

main()
''',
    "php": r'''<?php
namespace App\Math;

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
final class Pair {
    public function __construct(public int $a, public int $b) {}
    public function next(): Pair { return new Pair($this->b, $this->a + $this->b); }
}

function wälk(int $n, Pair $p): int {
    return $n === 0 ? $p->a : wälk($n - 1, $p->next());
}

function fib(int $n): int {
    fwrite(STDERR, "fib($n) héllo ✓\n");
    echo str_repeat("x", 1000), "\n";
    $id = fn($x) => $x;
    $square = function ($x) use ($id) { return $id($x) * $x; };
    $square(2);
    return wälk($n, new Pair(0, 1));
}

// Example usage
foreach (range(0, 10) as $i) {
    echo $i, " ", fib($i), "\n";
}
''',
    "perl": r'''use strict;
use warnings;
use List::Util qw(sum max);
use utf8;

# Größe: 斐波那契 — main, assert, panic, class, import are words here.
package Pair;
sub new { my ($class, $a, $b) = @_; return bless { a => $a, b => $b }, $class; }
sub next { my $self = shift; return Pair->new($self->{b}, $self->{a} + $self->{b}); }

package main;

sub wälk {
    my ($n, $p) = @_;
    return $n == 0 ? $p->{a} : wälk($n - 1, $p->next);
}

sub fib {
    my ($n) = @_;
    print STDERR "fib($n) héllo ✓\n";
    print "x" x 1000, "\n";
    return wälk($n, Pair->new(0, 1));
}

# Example usage
unless (caller) {
    print "$_ ", fib($_), "\n" for 0 .. 10;
}
''',
    "r": r'''# Größe: 斐波那契 — main, assert, panic, class, import are words here.
library(stats)
library(utils)

new_pair <- function(a, b) structure(list(a = a, b = b), class = "pair")
next_pair <- function(p) new_pair(p$b, p$a + p$b)

wälk <- function(n, p) {
  if (n == 0) return(p$a)
  wälk(n - 1, next_pair(p))
}

fib <- function(n) {
  message(sprintf("fib(%d) héllo ✓", n))
  cat(strrep("x", 1000), "\n")
  values <- vapply(list(0, 1), function(x) x, numeric(1))
  wälk(n, new_pair(values[1], values[2]))
}

# Example usage
main <- function() {
  for (i in 0:10) print(c(i, fib(i)))
}
main()
''',
    "ruby": '''require 'set'
require 'json'

# Größe: 斐波那契 — main, assert, panic, class, import are words here.
Pair = Struct.new(:a, :b) do
  def succ_pair = Pair.new(b, a + b)
end

module Fibonacci
  def self.wälk(n, p) = n.zero? ? p.a : wälk(n - 1, p.succ_pair)
end

def fib(n)
  $stderr.puts "fib(#{n}) héllo ✓"
  puts 'x' * 1000
  [0, 1].each_slice(2).map { |a, b| Fibonacci.wälk(n, Pair.new(a, b)) }.first
end

if __FILE__ == $PROGRAM_NAME
  # Example usage
  (0..10).each { |i| puts "#{i} #{fib(i)}" }
end
''',
    "racket": r'''#lang racket
;; Größe: 斐波那契 — main, assert, panic, class, import are words here.
(require racket/contract racket/list)

(struct pair (a b) #:transparent)

(define (next-pair p) (pair (pair-b p) (+ (pair-a p) (pair-b p))))

(define (wälk n p)
  (if (zero? n) (pair-a p) (wälk (sub1 n) (next-pair p))))

(define/contract (fib n)
  (-> exact-nonnegative-integer? exact-nonnegative-integer?)
  (eprintf "fib(~a) héllo ✓\n" n)
  (displayln (make-string 1000 #\x))
  (wälk n (pair 0 1)))

(module+ main
  ;; Example usage
  (for ([i (in-range 11)]) (printf "~a ~a\n" i (fib i))))
''',
    "haskell": r'''{-# LANGUAGE ScopedTypeVariables #-}
module Main where

import qualified Data.Map as Map
import Data.List (foldl')
import System.IO

-- Größe: 斐波那契 — main, assert, panic, class, import are words here.
class Steppable a where
  step :: a -> a

data Pair = Pair Integer Integer deriving (Show, Eq)

instance Steppable Pair where
  step (Pair a b) = Pair b (a + b)

fib :: Int -> Integer
fib n = gö n (Pair 0 1)
  where
    gö 0 (Pair a _) = a
    gö k p = gö (k - 1) (step p)

main :: IO ()
main = do
  -- Example usage
  hPutStrLn stderr "fib héllo ✓"
  mapM_ (\i -> putStrLn (show i ++ " " ++ show (fib i))) [0 .. 10]
  print (foldl' (+) 0 (Map.elems (Map.fromList [(1 :: Int, fib 3)])))
''',
    "ocaml": r'''(* Größe: 斐波那契 — main, assert, panic, class, import are words here. *)
module type STEP = sig
  type t
  val step : t -> t
  val first : t -> int
end

module Pair : STEP with type t = int * int = struct
  type t = int * int
  let step (a, b) = (b, a + b)
  let first (a, _) = a
end

module Walk (S : STEP) = struct
  let rec walk n p = if n = 0 then S.first p else walk (n - 1) (S.step p)
end

module W = Walk (Pair)

let fib n =
  Printf.eprintf "fib(%d) héllo ✓\n" n;
  print_endline (String.make 1000 'x');
  W.walk n (0, 1)

let () =
  (* Example usage *)
  List.iter (fun i -> Printf.printf "%d %d\n" i (fib i)) (List.init 11 Fun.id)
''',
    "scala": '''import scala.collection.mutable
import scala.annotation.tailrec

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
object Problem {
    case class Pair(a: Long, b: Long) { def next: Pair = Pair(b, a + b) }

    implicit class Times(val n: Long) extends AnyVal { def twice: Long = n * 2 }

    @tailrec
    private def wälk(n: Long, p: Pair): Long = if (n == 0) p.a else wälk(n - 1, p.next)

    def fib(n : Long) : Long = {
        System.err.println(s"fib($n) héllo ✓")
        println("x" * 1000)
        val memo = mutable.Map[Long, Long]()
        memo(n) = wälk(n, Pair(0, 1))
        memo(n)
    }

    def main(args: Array[String]): Unit = {
        // Example usage
        (0 to 10).foreach(i => println(s"$i ${fib(i)}"))
    }
}
''',
    "kotlin": '''import kotlin.math.abs
import java.util.ArrayList

// Größe: 斐波那契 — main, assert, panic, class, import are words here.
data class Pair2(val a: Long, val b: Long)

fun Pair2.next(): Pair2 = Pair2(b, a + b)

tailrec fun wälk(n: Long, p: Pair2): Long = if (n == 0L) p.a else wälk(n - 1, p.next())

fun fib(n: Long): Long {
    System.err.println("fib($n) héllo ✓")
    println("x".repeat(1000))
    val seen = ArrayList<Long>().apply { add(abs(n)) }
    return wälk(seen[0], Pair2(0, 1))
}

fun main() {
    // Example usage
    for (i in 0L..10L) println("$i ${fib(i)}")
}
''',
}
# MultiPL-E's shape of each language's tests: plain calls, judged outside.
CALLS = {
    "python": '''assert fib(10) == 55
assert fib(1) == 1
''',
    "c": '''#include <assert.h>
int main() {
    assert(fib(10) == 55);
    assert(fib(1) == 1);
    return 0;
}
''',
    "cpp": '''}
int main() {
    auto candidate = fib;
    assert(candidate(10) == (55));
    assert(candidate(1) == (1));
}
''',
    "java": '''    }
    public static void main(String[] args) {
    assert(fib((10l)) == (55l));
    assert(fib((1l)) == (1l));
    }

}
''',
    "javascript": '''const assert = require('node:assert');
function test() {
  let candidate = fib;
  assert.deepEqual(candidate(10), 55);
  assert.deepEqual(candidate(1), 1);
}
test();
''',
    "typescript": '''declare var require: any;
const assert = require('node:assert');
function test() {
  let candidate = fib;
  assert.deepEqual(candidate(10), 55);
  assert.deepEqual(candidate(1), 1);
}
test();
''',
    "rust": '''}

fn main() {
    let candidate = fib;
    assert_eq!(candidate(10), 55);
    assert_eq!(candidate(1), 1);
}
''',
    "bash": '''}

candidate() {
    fib "$@"
}

set -e
run_test() {
    [[ $(candidate "10") = "55" ]]
    [[ $(candidate "1") = "1" ]]
}

run_test''',
    "go": '''func main() {
    if fib(10) != 55 { panic("assertion failed") }
    if fib(1) != 1 { panic("assertion failed") }
}
''',
    "csharp": '''    }
    public static void Main(string[] args) {
    Debug.Assert(Fib((10L)) == (55L));
    Debug.Assert(Fib((1L)) == (1L));
    }

}
''',
    "d": '''unittest
{
    alias candidate = fib;

    assert(candidate(10L) == 55L);
    assert(candidate(1L) == 1L);
}
void main(){}''',
    "lua": '''lu = require('luaunit')

function test_humaneval()
local candidate = fib
    lu.assertEquals(candidate(10), 55)
    lu.assertEquals(candidate(1), 1)
end

os.exit(lu.LuaUnit.run())''',
    "php": '''function candidate(...$args) {
    return fib(...$args);
}

function test(): void {
    if (candidate(10) !== 55) { throw new Exception("Test failed!"); }
    if (candidate(1) !== 1) { throw new Exception("Test failed!"); }
}

test();''',
    "perl": r'''use Test::Deep;


sub testhumaneval {
    my $candidate = \&fib;
        if(eq_deeply($candidate->(10),55)) {
        print "ok!" }else{
        exit 1;
        }
        if(eq_deeply($candidate->(1),1)) {
        print "ok!" }else{
        exit 1;
        }
}

testhumaneval();''',
    "r": '''test_humaneval <- function() {
candidate <- fib
    stopifnot(isTRUE(all.equal(candidate(10), 55)))
    stopifnot(isTRUE(all.equal(candidate(1), 1)))
}
test_humaneval()''',
    "ruby": '''require 'test/unit'
class TestHumanEval < Test::Unit::TestCase
  def test_fib
    candidate = method(:fib)
    assert_equal(55, candidate.call(10))
    assert_equal(1, candidate.call(1))
  end
end
''',
    "racket": '''(require rackunit)

(define (test-humaneval)

  (let (( candidate fib))
    (check-equal? (candidate 10) 55)
    (check-equal? (candidate 1) 1)
))

(test-humaneval)''',
    "haskell": '''
main :: IO ()
main = do
  let candidate = fib
  if candidate 10 == 55 then pure () else error "assertion failed"
  if candidate 1 == 1 then pure () else error "assertion failed"
  pure ()''',
    "ocaml": '''
let assertions =
 let candidate = fib in
  (assert ((candidate 10) = 55));
  (assert ((candidate 1) = 1));
  ()
''',
    "scala": '''    }
    def main(args: Array[String]) = {
    assert(fib((10l)) == (55l));
    assert(fib((1l)) == (1l));
    }

}
''',
    "kotlin": '''fun main() {
    var arg00 : Long = 10L
    var x0 : Long = fib(arg00);
    var v0 : Long = 55L;
    assert(x0 == v0)
    var arg10 : Long = 1L
    var x1 : Long = fib(arg10);
    var v1 : Long = 1L;
    assert(x1 == v1)
}
''',
}
# Tests that loop: run in the solution's process.
LOOPS = {
    "python": '''for i in range(20):
    assert fib(i + 2) == fib(i + 1) + fib(i)
''',
    "c": '''#include <assert.h>
int main() {
    for (int i = 0; i < 20; i++)
        assert(fib(i + 2) == fib(i + 1) + fib(i));
    return 0;
}
''',
    "cpp": '''}
int main() {
    for (int i = 0; i < 20; i++)
        assert(fib(i + 2) == fib(i + 1) + fib(i));
}
''',
    "java": '''    }
    public static void main(String[] args) {
    for (long i = 0; i < 20; i++)
        assert(fib(i + 2) == fib(i + 1) + fib(i));
    }

}
''',
    "javascript": '''const assert = require('node:assert');
for (let i = 0; i < 20; i++)
  assert.deepEqual(fib(i + 2), fib(i + 1) + fib(i));
''',
    "typescript": '''declare var require: any;
const assert = require('node:assert');
for (let i = 0; i < 20; i++)
  assert.deepEqual(fib(i + 2), fib(i + 1) + fib(i));
''',
    "rust": '''}

fn main() {
    for i in 0..20 {
        assert_eq!(fib(i + 2), fib(i + 1) + fib(i));
    }
}
''',
    "bash": '''}

for i in $(seq 0 19); do
    a=$(fib $((i + 2))); b=$(fib $((i + 1))); c=$(fib $i)
    [[ $a -eq $((b + c)) ]] || exit 1
done
''',
    "go": '''func main() {
    for i := 0; i < 20; i++ {
        if fib(i+2) != fib(i+1)+fib(i) { panic("assertion failed") }
    }
}
''',
    "csharp": '''    }
    public static void Main(string[] args) {
    for (long i = 0; i < 20; i++)
        Debug.Assert(Fib(i + 2) == Fib(i + 1) + Fib(i));
    }

}
''',
    "d": '''unittest
{
    foreach (i; 0 .. 20)
        assert(fib(i + 2) == fib(i + 1) + fib(i));
}
void main(){}''',
    "lua": '''for i = 0, 19 do assert(fib(i + 2) == fib(i + 1) + fib(i)) end
''',
    "php": '''for ($i = 0; $i < 20; $i++) {
    if (fib($i + 2) !== fib($i + 1) + fib($i)) { throw new Exception("Test failed!"); }
}
''',
    "perl": '''for my $i (0 .. 19) {
    die "assertion failed" unless fib($i + 2) == fib($i + 1) + fib($i);
}
''',
    "r": '''for (i in 0:19) stopifnot(fib(i + 2) == fib(i + 1) + fib(i))
''',
    "ruby": '''20.times { |i| raise 'assertion failed' unless fib(i + 2) == fib(i + 1) + fib(i) }
''',
    "racket": '''(require rackunit)
(for ([i (in-range 20)])
  (check-equal? (fib (+ i 2)) (+ (fib (+ i 1)) (fib i))))
''',
    "haskell": r'''main :: IO ()
main = mapM_ (\i -> if fib (i + 2) == fib (i + 1) + fib i
  then pure () else error "assertion failed") [0 .. 19]
''',
    "ocaml": '''let () = for i = 0 to 19 do assert (fib (i + 2) = fib (i + 1) + fib i) done
''',
    "scala": '''    }
    def main(args: Array[String]) = {
    for (i <- 0l until 20l)
        assert(fib(i + 2) == fib(i + 1) + fib(i));
    }

}
''',
    "kotlin": '''fun main() {
    for (i in 0L until 20L) {
        assert(fib(i + 2) == fib(i + 1) + fib(i))
    }
}
''',
}
FENCE_TAGS = {"typescript": "ts", "csharp": "cs", "haskell": "hs", "javascript": "js"}


def dressed(language: str, code: str) -> str:
    """The answer as a response: a byte order mark, prose around a fenced block tagged with the
    language (an alias), CRLF line ends, and tabs for four spaces of indentation."""
    tabbed = "\n".join("\t" * ((len(line) - len(line.lstrip(" "))) // 4)
                       + " " * ((len(line) - len(line.lstrip(" "))) % 4) + line.lstrip(" ")
                       for line in code.split("\n"))
    tag = FENCE_TAGS.get(language, language)
    response = (f"\ufeffHere is a solution.\n\n```{tag}\n{tabbed}```\n\nIt calls itself on "
                f"smaller inputs; the example in `main` prints the first values.\n")
    return response.replace("\n", "\r\n")


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


def _judged(language: str, response: str) -> list[tuple[str, str | None]]:
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")
    results = run_code_items([_item(language, response, CALLS[language]),
                              _item(language, response, LOOPS[language])])
    return [(r.status.value, r.detail.get("judged")) for r in results]


# The languages whose tests (or calls driver) bring the program's entry point.
ENTRY_LANGUAGES = ("c", "cpp", "csharp", "d", "go", "haskell", "java", "kotlin", "rust", "scala")


@pytest.mark.parametrize("language", ENTRY_LANGUAGES)
def test_a_solutions_own_entry_point_is_not_the_tests(language: str):
    # A whole program: the function and a main that shows it at work. MultiPL-E's and
    # HumanEval-X's harnesses append their tests to a completion that stops before any main,
    # so given this they compile two mains and fail; the solution is right all the same, and
    # its main, renamed, never runs.
    assert _judged(language, SOLUTIONS[language]) == [
        ("correct", "outside"), ("correct", "in_process")]


# The languages whose MultiPL-E tests start by closing the prompt's function (and class).
PROMPT_LANGUAGES = ("bash", "cpp", "csharp", "java", "rust", "scala")


@pytest.mark.parametrize("language", PROMPT_LANGUAGES)
def test_a_whole_function_meets_tests_that_close_the_prompts_function(language: str):
    # MultiPL-E's tests follow a completion of an open function (`}` then main; Java's, C#'s
    # and Scala's `    }` then main inside the class, then `}`); the model's whole function,
    # closed (its class too), is right all the same: it was a compile or syntax error.
    assert CALLS[language].lstrip().startswith("}") and LOOPS[language].lstrip().startswith("}")
    assert _judged(language, SOLUTIONS[language]) == [
        ("correct", "outside"), ("correct", "in_process")]


def test_bash_reads_a_response_with_crlf_line_ends():
    # Bash reads a carriage return before a line end as part of the line (`walk() {\r` is a
    # syntax error); a response's line ends are its transport's, and every other language
    # here reads CRLF as a line end: the script runs as it would have, saved with LF.
    response = SOLUTIONS["bash"].replace("\n", "\r\n")
    assert _judged("bash", response) == [("correct", "outside"), ("correct", "in_process")]
    stdio = run_code_items([CodeItem(language="bash", response="read -r n\r\necho $((n + 1))\r\n",
                                     tests={"type": "stdio", "cases": [{"input": "1\n",
                                                                         "output": "2\n"}]})])
    assert stdio[0].status.value == "correct", stdio


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_js_tests_declare_their_names_beside_the_solutions(language: str):
    # A solution with example usage that requires assert itself (`const assert = ...`) and
    # tests that do too: one scope, so node refused the second `const` (a SyntaxError, which
    # the run took for a failed assertion: `wrong`). The tests' declarations are their own.
    solution = ("const assert = require('assert');\nfunction fib(n) { return n < 2 ? n : "
                "fib(n - 1) + fib(n - 2); }\nassert.strictEqual(fib(10), 55);\n")
    assert _judged(language, solution) == [("correct", "outside"), ("correct", "in_process")]
    # A program that never ran its tests (a syntax error quoting an `assert` line) did not
    # fail one.
    broken = run_code_items([_item(language, "function fib(n) { assert( }\n", LOOPS[language])])
    assert broken[0].status.value in ("runtime_error", "compile_error"), broken


def test_racket_a_function_defined_with_a_contract_is_called_through_it():
    # `define/contract` binds its name to syntax (the contract's wrapper), not to a variable:
    # the calls driver could not find it ("bound to syntax") and in-process tests did not
    # see it ("undefined"). Called through its contract, as the solution's own code calls it.
    solution = ("#lang racket\n(define/contract (fib n)\n  (-> exact-nonnegative-integer? "
                "exact-nonnegative-integer?)\n  (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))\n")
    assert _judged("racket", solution) == [("correct", "outside"), ("correct", "in_process")]
    wrong = solution.replace("(+ (fib (- n 1)) (fib (- n 2)))", "n")
    assert [r.status.value for r in run_code_items(
        [_item("racket", wrong, CALLS["racket"]), _item("racket", wrong, LOOPS["racket"])])] == [
        "wrong", "wrong"]


def test_php_tests_call_a_function_of_the_solutions_namespace():
    # In-process tests are evaluated in the global namespace (a solution's namespace must not
    # stand for the names they call: `abs`), where a function the solution declared in its
    # own namespace had no name: "Call to undefined function fib()". A name the global
    # namespace lacks, and the tests do not define, calls the solution's (as the calls driver,
    # in its file, does); PHP's own still come first.
    solution = ("<?php\nnamespace App\\Math;\n\nfunction abs($x) { return 0; }\n"
                "function fib(int $n): int { return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }\n")
    assert _judged("php", solution) == [("correct", "outside"), ("correct", "in_process")]
    tests = "if (abs(-2) !== 2) { throw new Exception('Test failed!'); }\n" + LOOPS["php"]
    assert run_code_items([_item("php", solution, tests)])[0].status.value == "correct"


@pytest.mark.parametrize("language", sorted(SOLUTIONS))
def test_right_solutions_pass_as_written_and_dressed_as_responses(language: str):
    for response in (SOLUTIONS[language], dressed(language, SOLUTIONS[language])):
        assert _judged(language, response) == [
            ("correct", "outside"), ("correct", "judge" if language == "python" else "in_process")]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_js_a_main_module_guard_does_not_run_the_example(language: str):
    # `if (require.main === module) main();` is JavaScript's `if __name__ == "__main__":`: a
    # test harness requires the solution, so its example does not run, as Python's does not
    # here. It ran, reading an empty stdin (fib(NaN): no end) or exiting before the tests
    # ("exited before the tests finished"). A solution that exits where it is loaded still
    # earns nothing.
    guarded = ("function fib(n) {\n  return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\n"
               "if (require.main === module) {\n  const n = parseInt(require('fs')"
               ".readFileSync(0, 'utf8'));\n  console.log(fib(n));\n  process.exit(0);\n}\n")
    if language == "typescript":
        guarded = "declare var require: any, module: any, process: any;\n" + guarded
    assert _judged(language, guarded) == [("correct", "outside"), ("correct", "in_process")]
    exits = guarded.split("if (require.main")[0] + "process.exit(0);\n"
    assert [r.status.value for r in run_code_items([_item(language, exits, CALLS[language]),
                                                    _item(language, exits, LOOPS[language])])] == [
        "runtime_error", "runtime_error"]


def test_ruby_a_main_program_guard_does_not_run_the_example():
    # `if __FILE__ == $0` is Ruby's `if __name__ == "__main__":`: its example (reading stdin,
    # which is empty here: `gets.chomp` of nil) does not run where the solution is tested, as
    # Python's does not. One that exits where it is loaded still earns nothing.
    guarded = ("def fib(n)\n  n < 2 ? n : fib(n - 1) + fib(n - 2)\nend\n\n"
               "if __FILE__ == $0\n  n = gets.chomp.to_i\n  puts fib(n)\n  exit 0\nend\n")
    assert _judged("ruby", guarded) == [("correct", "outside"), ("correct", "in_process")]
    exits = guarded.split("if __FILE__")[0] + "exit 0\n"
    assert [r.status.value for r in run_code_items([_item("ruby", exits, CALLS["ruby"]),
                                                    _item("ruby", exits, LOOPS["ruby"])])] == [
        "runtime_error", "runtime_error"]


# Perl's and bash's main-program guards, each form a model writes: the example (reading stdin,
# which is empty here, then exiting) does not run where the solution is tested, as Python's
# does not; it ran ("exited before the tests finished").
_PERL_FIB = ("use strict;\nuse warnings;\n\nsub fib {\n    my ($n) = @_;\n"
             "    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);\n}\n\n"
             "sub main {\n    my $n = <STDIN> // 0;\n    print fib($n), \"\\n\";\n"
             "    exit 0;\n}\n\n")
_BASH_FIB = ("#!/bin/bash\nfib() {\n    local n=$1 a=0 b=1 t i\n"
             "    for (( i = 0; i < n; i++ )); do (( t = a + b, a = b, b = t )); done\n"
             "    echo \"$a\"\n}\n\nmain() {\n    read -r n\n    fib \"$n\"\n    exit 0\n}\n\n")
MAIN_GUARDS = {
    "perl unless caller": ("perl", _PERL_FIB + "main() unless caller;\n"),
    "perl __PACKAGE__->main unless caller": (
        "perl", _PERL_FIB + "__PACKAGE__->main() unless caller();\n__END__\nfib(10) is 55\n"),
    "perl if not caller": ("perl", _PERL_FIB + "if (!caller) {\n    main();\n}\n1;\n"),
    "bash BASH_SOURCE is $0": (
        "bash", _BASH_FIB + "if [[ \"${BASH_SOURCE[0]}\" == \"${0}\" ]]; then\n"
                            "    main \"$@\"\nfi\n"),
    "bash $0 is BASH_SOURCE": (
        "bash", _BASH_FIB + "[ \"$0\" = \"$BASH_SOURCE\" ] && main \"$@\"\n"),
    "bash return fails outside a sourced file": (
        "bash", _BASH_FIB + "(return 0 2>/dev/null) || main \"$@\"\n"),
}


@pytest.mark.parametrize("guard", sorted(MAIN_GUARDS))
def test_perl_and_bash_a_main_program_guard_does_not_run_the_example(guard: str):
    language, guarded = MAIN_GUARDS[guard]
    assert _judged(language, guarded) == [("correct", "outside"), ("correct", "in_process")]


@pytest.mark.parametrize("language", ["perl", "bash"])
def test_perl_and_bash_a_solution_that_exits_where_it_is_loaded_earns_nothing(language: str):
    # Unguarded, the example runs where the solution is loaded: it exits before the tests.
    exits = (_PERL_FIB + "main();\n") if language == "perl" else (_BASH_FIB + "main \"$@\"\n")
    assert [r.status.value for r in run_code_items([_item(language, exits, CALLS[language]),
                                                    _item(language, exits, LOOPS[language])])] == [
        "runtime_error", "runtime_error"]


def test_c_tests_whose_main_falls_off_its_end_pass():
    # C99: a `main` that reaches its closing brace returns 0. The tests' main is renamed for
    # the epilogue to call, and a renamed one that fell off its end returned what was left in a
    # register: a right solution's run failed (exit status 1). A main that returns non-zero
    # still fails; a wrong solution still fails its assert.
    right = "int add(int a, int b) { return a + b; }\n"
    wrong = right.replace("a + b", "a - b")
    falls_off = ("#include <assert.h>\nint main() { for (int i = 1; i < 3; i++) "
                 "assert(add(i, i) == 2 * i); }\n")
    returns = falls_off.replace("); }\n", "); return 3; }\n")
    results = run_code_items([_item("c", right, falls_off), _item("c", wrong, falls_off),
                              _item("c", right, returns)])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process"), ("wrong", "in_process"), ("runtime_error", "in_process")]


_ADD = {
    "c": "int add(int a, int b) { return a + b; }\n",
    "cpp": "int add(int a, int b) { return a + b; }\n",
    "csharp": "class Sol { public static int Add(int a, int b) { return a + b; } }\n",
    "d": "int add(int a, int b) { return a + b; }\n",
    "kotlin": "fun add(a: Int, b: Int): Int = a + b\n",
    "scala": "object Solution { def add(a: Int, b: Int): Int = a + b }\n",
}
# The tests' entry point in the other signatures each language allows for it.
ENTRY_FORMS = [
    ("c", "#include <assert.h>\nint main(int argc, char **argv) {\n    for (int i = 1; i < 3; i++)"
          " assert(add(i, i) == 2 * i);\n    return 0;\n}\n"),
    ("cpp", "#include <cassert>\nint main(int argc, char* argv[]) {\n    for (int i = 1; i < 3; "
            "i++) assert(add(i, i) == 2 * i);\n}\n"),
    ("csharp", "class Test {\n    static int Main() {\n        for (int i = 1; i < 3; i++) { if "
               "(Sol.Add(i, i) != 2 * i) return 1; }\n        return 0;\n    }\n}\n"),
    ("d", "int main() {\n    foreach (i; 1 .. 3) if (add(i, i) != 2 * i) return 1;\n    return 0;"
          "\n}\n"),
    ("d", "void main(string[] args) {\n    foreach (i; 1 .. 3) assert(add(i, i) == 2 * i);\n}\n"),
    ("kotlin", "fun main(args: Array<String>) {\n    for (i in 1..2) { check(add(i, i) == 2 * i) }"
               "\n}\n"),
    ("kotlin", "fun main(vararg args: String) {\n    for (i in 1..2) { check(add(i, i) == 2 * i) }"
               "\n}\n"),
    ("scala", "object Main extends App {\n  for (i <- 1 to 2) assert(Solution.add(i, i) == 2 * i)"
              "\n}\n"),
]


@pytest.mark.parametrize(("language", "tests"), ENTRY_FORMS)
def test_tests_whose_entry_point_takes_arguments_or_returns_a_status(language: str, tests: str):
    # Only `int main(void)`, `static void Main`, `void main()`, `fun main()` and `def main(`
    # were renamed for the epilogue to call: the tests' entry in another allowed signature
    # (arguments, an int status, Scala's `extends App`) met the epilogue's own, and a right
    # solution was a compile_error. A status other than 0 still fails, as a wrong solution does.
    right = _ADD[language]
    results = run_code_items([_item(language, right, tests),
                              _item(language, right.replace("a + b", "a - b"), tests)])
    assert [(r.status.value, r.detail.get("judged")) for r in results][0] == (
        "correct", "in_process"), results
    assert results[1].reward == 0.0 and results[1].status.value in ("wrong", "runtime_error"), \
        results
